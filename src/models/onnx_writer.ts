/**
 * A minimal ONNX model encoder: just enough of the protobuf wire format to write a graph of
 * plain nodes with raw little-endian initializers and symbolic input/output shapes. It exists
 * so the built-in static embedding model can be produced without Python or a protobuf library.
 *
 * Field numbers follow `onnx/onnx.proto` (IR version 8 and later); unset optional fields are
 * omitted, and fields are always written in one fixed order so equal inputs give equal bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeOnnxModel, OnnxDataType } from "./onnx_writer.ts";
 *
 * const bytes = encodeOnnxModel({
 *   irVersion: 8,
 *   opsetVersion: 13,
 *   graph: {
 *     name: "identity",
 *     nodes: [{ opType: "Identity", inputs: ["x"], outputs: ["y"] }],
 *     initializers: [],
 *     inputs: [{ name: "x", elemType: OnnxDataType.FLOAT, shape: ["batch"] }],
 *     outputs: [{ name: "y", elemType: OnnxDataType.FLOAT, shape: ["batch"] }],
 *   },
 * });
 * assert.equal(bytes[0], 0x08); // field 1 (ir_version), a varint
 * assert.equal(bytes[1], 8);
 * ```
 * @module
 */

/** ONNX `TensorProto.DataType` values used by mema's graphs. */
export const OnnxDataType = {
  FLOAT: 1,
  INT64: 7,
} as const;

/** One of the supported ONNX element types. */
export type OnnxDataType = typeof OnnxDataType[keyof typeof OnnxDataType];

/** A tensor dimension: a fixed size, or a symbolic name such as `"batch"`. */
export type OnnxDim = number | string;

/** A graph input or output: name, element type and (possibly symbolic) shape. */
export interface OnnxValueInfo {
  /** The tensor name nodes refer to, e.g. `input_ids`. */
  name: string;
  /** Element type. */
  elemType: OnnxDataType;
  /** One entry per axis; strings become symbolic `dim_param`s. */
  shape: OnnxDim[];
}

/** A constant tensor stored inside the model as `raw_data` (little-endian). */
export interface OnnxInitializer {
  /** The tensor name nodes refer to. */
  name: string;
  /** Element type. */
  dataType: OnnxDataType;
  /** Fixed shape. */
  dims: number[];
  /** Elements in row-major order, little-endian; the length must match `dims`. */
  rawData: Uint8Array;
}

/** A graph node without attributes (the default attribute values are used). */
export interface OnnxNode {
  /** Operator of the default domain, e.g. `Gather`. */
  opType: string;
  /** Input tensor names, in the operator's order. */
  inputs: string[];
  /** Output tensor names. */
  outputs: string[];
  /** Optional node name (shows up in onnxruntime's logs). */
  name?: string;
}

/** The single graph of a model. */
export interface OnnxGraph {
  /** Graph name. */
  name: string;
  /** Nodes in topological order. */
  nodes: OnnxNode[];
  /** Constant tensors. */
  initializers: OnnxInitializer[];
  /** Inputs the caller feeds. */
  inputs: OnnxValueInfo[];
  /** Outputs the caller reads. */
  outputs: OnnxValueInfo[];
}

/** A whole model: IR version, the default-domain opset, the graph and optional metadata. */
export interface OnnxModel {
  /** ONNX IR version of the file format. */
  irVersion: number;
  /** Version of the default (`ai.onnx`) operator set. */
  opsetVersion: number;
  /** The model's graph. */
  graph: OnnxGraph;
  /** Tool that wrote the model. */
  producerName?: string;
  /** Version of that tool. */
  producerVersion?: string;
  /** Human-readable description. */
  docString?: string;
  /** Written as `metadata_props`, sorted by key so the bytes do not depend on insertion order. */
  metadata?: Record<string, string>;
}

const WIRE_VARINT = 0;
const WIRE_LENGTH_DELIMITED = 2;

/**
 * Accumulates protobuf fields of one message. Chunks are collected and joined once at the end,
 * so a 12 MB initializer is copied a bounded number of times (once per nesting level).
 */
class ProtoMessage {
  #chunks: Uint8Array[] = [];
  #length = 0;

  varint(field: number, value: number): this {
    this.#push(encodeVarint((field << 3) | WIRE_VARINT));
    this.#push(encodeVarint(value));
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.#push(encodeVarint((field << 3) | WIRE_LENGTH_DELIMITED));
    this.#push(encodeVarint(value.length));
    this.#push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, value: ProtoMessage): this {
    return this.bytes(field, value.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.#length);
    let offset = 0;
    for (const chunk of this.#chunks) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  }

  #push(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
    this.#length += chunk.length;
  }
}

/**
 * Encodes a non-negative integer as a protobuf varint. Negative int64 values would need ten
 * bytes of two's complement; no field mema writes can be negative, so they are rejected.
 */
function encodeVarint(value: number): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`onnx_writer: varint must be a non-negative safe integer, got ${value}`);
  }
  const bytes: number[] = [];
  let rest = value;
  // Division instead of `>>>` because shifts truncate to 32 bits and tensor sizes may exceed 2^31.
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Uint8Array.from(bytes);
}

// TypeProto.Tensor { elem_type = 1; shape = 2 } with TensorShapeProto { dim = 1 } and
// Dimension { dim_value = 1; dim_param = 2 }.
function encodeValueInfo(info: OnnxValueInfo): ProtoMessage {
  const shape = new ProtoMessage();
  for (const dim of info.shape) {
    const dimension = new ProtoMessage();
    if (typeof dim === "number") dimension.varint(1, dim);
    else dimension.string(2, dim);
    shape.message(1, dimension);
  }
  const tensorType = new ProtoMessage().varint(1, info.elemType).message(2, shape);
  const type = new ProtoMessage().message(1, tensorType);
  return new ProtoMessage().string(1, info.name).message(2, type);
}

// TensorProto { dims = 1; data_type = 2; name = 8; raw_data = 9 }.
function encodeInitializer(tensor: OnnxInitializer): ProtoMessage {
  const expected = tensor.dims.reduce((a, b) => a * b, 1) * bytesPerElement(tensor.dataType);
  if (tensor.rawData.length !== expected) {
    throw new RangeError(
      `onnx_writer: initializer ${tensor.name} has ${tensor.rawData.length} bytes, ` +
        `dims ${JSON.stringify(tensor.dims)} need ${expected}`,
    );
  }
  const message = new ProtoMessage();
  for (const dim of tensor.dims) message.varint(1, dim);
  return message.varint(2, tensor.dataType).string(8, tensor.name).bytes(9, tensor.rawData);
}

function bytesPerElement(dataType: OnnxDataType): number {
  return dataType === OnnxDataType.INT64 ? 8 : 4;
}

// NodeProto { input = 1; output = 2; name = 3; op_type = 4 }.
function encodeNode(node: OnnxNode): ProtoMessage {
  const message = new ProtoMessage();
  for (const input of node.inputs) message.string(1, input);
  for (const output of node.outputs) message.string(2, output);
  if (node.name !== undefined) message.string(3, node.name);
  return message.string(4, node.opType);
}

// GraphProto { node = 1; name = 2; initializer = 5; input = 11; output = 12 }.
function encodeGraph(graph: OnnxGraph): ProtoMessage {
  const message = new ProtoMessage();
  for (const node of graph.nodes) message.message(1, encodeNode(node));
  message.string(2, graph.name);
  for (const tensor of graph.initializers) message.message(5, encodeInitializer(tensor));
  for (const input of graph.inputs) message.message(11, encodeValueInfo(input));
  for (const output of graph.outputs) message.message(12, encodeValueInfo(output));
  return message;
}

/**
 * Serializes a model to ONNX protobuf bytes, ready to be written as `model.onnx`.
 * Output is a pure function of the input: no timestamps, metadata sorted by key.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeOnnxModel, OnnxDataType } from "./onnx_writer.ts";
 *
 * const table = new Float32Array([0, 0, 1, 1]);
 * const bytes = encodeOnnxModel({
 *   irVersion: 8,
 *   opsetVersion: 13,
 *   graph: {
 *     name: "lookup",
 *     nodes: [{ opType: "Gather", inputs: ["table", "ids"], outputs: ["out"] }],
 *     initializers: [{
 *       name: "table",
 *       dataType: OnnxDataType.FLOAT,
 *       dims: [2, 2],
 *       rawData: new Uint8Array(table.buffer),
 *     }],
 *     inputs: [{ name: "ids", elemType: OnnxDataType.INT64, shape: ["n"] }],
 *     outputs: [{ name: "out", elemType: OnnxDataType.FLOAT, shape: ["n", 2] }],
 *   },
 * });
 * assert.ok(bytes.length > table.byteLength); // the table's bytes are in the model
 * ```
 */
export function encodeOnnxModel(model: OnnxModel): Uint8Array {
  // ModelProto { ir_version = 1; producer_name = 2; producer_version = 3; doc_string = 6;
  // graph = 7; opset_import = 8; metadata_props = 14 }, OperatorSetIdProto { domain = 1;
  // version = 2 } (the empty default domain is omitted), StringStringEntryProto { key = 1;
  // value = 2 }.
  const message = new ProtoMessage().varint(1, model.irVersion);
  if (model.producerName !== undefined) message.string(2, model.producerName);
  if (model.producerVersion !== undefined) message.string(3, model.producerVersion);
  if (model.docString !== undefined) message.string(6, model.docString);
  message.message(7, encodeGraph(model.graph));
  message.message(8, new ProtoMessage().varint(2, model.opsetVersion));
  const metadata = model.metadata ?? {};
  for (const key of Object.keys(metadata).sort()) {
    message.message(14, new ProtoMessage().string(1, key).string(2, metadata[key]));
  }
  return message.finish();
}

import assert from "node:assert/strict";
import { encodeOnnxModel, OnnxDataType, type OnnxModel } from "../../src/models/onnx_writer.ts";

/** One decoded protobuf field: varints as numbers, length-delimited fields as bytes. */
type Field = { field: number; value: number | Uint8Array };

/** A minimal wire-format reader, enough to walk what the writer produces. */
function decode(bytes: Uint8Array): Field[] {
  const fields: Field[] = [];
  let offset = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = bytes[offset++];
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  };
  while (offset < bytes.length) {
    const key = varint();
    const wire = key & 7;
    if (wire === 0) fields.push({ field: key >>> 3, value: varint() });
    else if (wire === 2) {
      const length = varint();
      fields.push({ field: key >>> 3, value: bytes.subarray(offset, offset + length) });
      offset += length;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return fields;
}

function one(fields: Field[], field: number): Field["value"] {
  const found = fields.filter((f) => f.field === field);
  assert.equal(found.length, 1, `field ${field} once`);
  return found[0].value;
}

function all(fields: Field[], field: number): Field["value"][] {
  return fields.filter((f) => f.field === field).map((f) => f.value);
}

function text(value: Field["value"]): string {
  return new TextDecoder().decode(value as Uint8Array);
}

function lookupModel(metadata?: Record<string, string>): OnnxModel {
  const table = new Float32Array([0, 0, 1.5, -2]);
  return {
    irVersion: 8,
    opsetVersion: 13,
    producerName: "mema-test",
    metadata,
    graph: {
      name: "lookup",
      nodes: [{ name: "g", opType: "Gather", inputs: ["table", "ids"], outputs: ["out"] }],
      initializers: [{
        name: "table",
        dataType: OnnxDataType.FLOAT,
        dims: [2, 2],
        rawData: new Uint8Array(table.buffer),
      }],
      inputs: [{ name: "ids", elemType: OnnxDataType.INT64, shape: ["batch", "seq"] }],
      outputs: [{ name: "out", elemType: OnnxDataType.FLOAT, shape: ["batch", "seq", 2] }],
    },
  };
}

Deno.test("encodeOnnxModel writes the ModelProto fields onnx.proto defines", () => {
  const model = decode(encodeOnnxModel(lookupModel()));
  assert.equal(one(model, 1), 8, "ir_version");
  assert.equal(text(one(model, 2)), "mema-test", "producer_name");
  assert.deepEqual(decode(one(model, 8) as Uint8Array), [{ field: 2, value: 13 }], "opset");

  const graph = decode(one(model, 7) as Uint8Array);
  assert.equal(text(one(graph, 2)), "lookup");
  const node = decode(one(graph, 1) as Uint8Array);
  assert.deepEqual(all(node, 1).map(text), ["table", "ids"]);
  assert.deepEqual(all(node, 2).map(text), ["out"]);
  assert.equal(text(one(node, 3)), "g");
  assert.equal(text(one(node, 4)), "Gather");

  const tensor = decode(one(graph, 5) as Uint8Array);
  assert.deepEqual(all(tensor, 1), [2, 2], "dims");
  assert.equal(one(tensor, 2), OnnxDataType.FLOAT);
  assert.equal(text(one(tensor, 8)), "table");
  const raw = one(tensor, 9) as Uint8Array;
  assert.deepEqual(Array.from(new Float32Array(raw.slice().buffer)), [0, 0, 1.5, -2]);

  const output = decode(one(graph, 12) as Uint8Array);
  assert.equal(text(one(output, 1)), "out");
  const tensorType = decode(one(decode(one(output, 2) as Uint8Array), 1) as Uint8Array);
  assert.equal(one(tensorType, 1), OnnxDataType.FLOAT);
  const dims = all(decode(one(tensorType, 2) as Uint8Array), 1).map((d) =>
    decode(d as Uint8Array)[0]
  );
  assert.deepEqual(dims.map((d) => d.field), [2, 2, 1], "dim_param, dim_param, dim_value");
  assert.deepEqual([text(dims[0].value), text(dims[1].value), dims[2].value], ["batch", "seq", 2]);
});

Deno.test("encodeOnnxModel is deterministic and sorts metadata by key", () => {
  const a = encodeOnnxModel(lookupModel({ b: "2", a: "1" }));
  const b = encodeOnnxModel(lookupModel({ a: "1", b: "2" }));
  assert.deepEqual(a, b);
  const entries = all(decode(a), 14).map((entry) =>
    decode(entry as Uint8Array).map((f) => text(f.value))
  );
  assert.deepEqual(entries, [["a", "1"], ["b", "2"]]);
});

Deno.test("encodeOnnxModel encodes large sizes as multi-byte varints", () => {
  const model = lookupModel();
  model.irVersion = 2 ** 35 + 300;
  assert.equal(one(decode(encodeOnnxModel(model)), 1), 2 ** 35 + 300);
});

Deno.test("encodeOnnxModel refuses negative numbers and raw data of the wrong length", () => {
  const negative = lookupModel();
  negative.opsetVersion = -1;
  assert.throws(() => encodeOnnxModel(negative), RangeError);
  const short = lookupModel();
  short.graph.initializers[0].rawData = new Uint8Array(12);
  assert.throws(() => encodeOnnxModel(short), /has 12 bytes, dims \[2,2\] need 16/);
});

/**
 * Seeded generator of realistic agent notes for the scale benchmark: short facts, longer
 * Markdown notes with headings and tables, Chinese facts and mixed English/Chinese notes,
 * spread over workspaces and tags, plus queries built from words the notes contain.
 *
 * @example
 * ```ts
 * import { NoteGenerator } from "./bench/helpers/notes.ts";
 * const notes = new NoteGenerator(42);
 * const note = notes.next(); // {subject, content, workspace, tags, eventTime}
 * const query = notes.queryFor(note);
 * ```
 * @module
 */
import { seededRandom } from "../../tests/helpers/random.ts";

/** One generated memory, in the shape `rememberMemory` takes. */
export interface GeneratedNote {
  subject: string;
  content: string;
  workspace: string;
  tags: string[];
  eventTime: string;
  /** Which template family produced it. */
  kind: "fact" | "note" | "cjk_fact" | "cjk_note" | "mixed";
}

const PEOPLE = (
  "alice bob carol dave erin frank grace heidi ivan judy mallory niaj olivia peggy rupert " +
  "sybil trent victor walter xavier yolanda zoe amir bianca chen dmitri elena farah goran " +
  "hana igor jun kenji lars mei nadia omar priya quinn rosa sanjay tomas umar vera wen"
).split(" ");
const SERVICES = (
  "billing auth gateway search ledger payments inventory checkout notifier scheduler " +
  "reporting analytics ingest exporter importer mailer webhooks catalog pricing shipping " +
  "invoicing identity profile session cache queue worker crawler indexer renderer uploader " +
  "thumbnailer transcoder recommender ranking feed timeline chat presence audit metrics " +
  "alerting backup restore migrator sync mobile-api admin-console partner-api docs-site"
).split(" ");
const NOUNS = (
  "deploy release rollback migration schema index table column query cache key secret token " +
  "certificate domain endpoint latency timeout retry budget quota limit threshold alert " +
  "dashboard runbook incident postmortem outage ticket sprint roadmap milestone estimate " +
  "review branch merge commit pipeline build artifact container image cluster node pod " +
  "region zone bucket volume snapshot replica shard partition topic consumer producer " +
  "message event webhook payload header cookie session password account user customer " +
  "invoice refund discount coupon price currency tax report export import backup restore " +
  "config flag toggle experiment cohort metric histogram percentile benchmark profile " +
  "memory disk network bandwidth firewall proxy gateway load balancer dns vpn laptop " +
  "keyboard monitor meeting standup retro demo offsite interview onboarding handbook " +
  "contract vendor license invoice budget hiring payroll vacation holiday office"
).split(/\s+/);
const VERBS = (
  "runs fails restarts scales migrates deploys rotates expires renews throttles retries " +
  "caches indexes exports imports alerts pages blocks logs samples compresses encrypts " +
  "signs verifies routes mirrors replicates archives purges"
).split(" ");
const ADJECTIVES = (
  "slow fast flaky stable critical optional deprecated new legacy primary secondary " +
  "nightly weekly monthly internal external encrypted cached stale fresh manual automatic"
).split(" ");
const WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split(" ");
const TAGS = (
  "deploy ops security billing infra frontend backend mobile data ml oncall incident todo " +
  "decision preference meeting people process hiring finance legal docs perf bug idea"
).split(" ");
const CJK_WORDS = (
  "部署 发布 回滚 数据库 索引 缓存 密钥 证书 域名 接口 延迟 超时 重试 预算 配额 告警 仪表盘 " +
  "故障 复盘 工单 迭代 路线图 里程碑 评审 分支 合并 流水线 构建 镜像 集群 节点 区域 存储桶 " +
  "快照 副本 分片 消息 事件 用户 客户 发票 退款 优惠券 价格 汇率 税费 报表 导出 导入 备份 " +
  "恢复 配置 开关 实验 指标 基准 内存 磁盘 网络 带宽 防火墙 代理 网关 负载均衡 会议 站会 " +
  "面试 入职 手册 合同 供应商 许可证 招聘 工资 假期 办公室 北京 上海 深圳 杭州 成都"
).split(" ");
const CJK_PEOPLE = "张伟 王芳 李娜 刘洋 陈静 杨磊 赵敏 黄强 周杰 吴昊 徐丽 孙涛".split(" ");
const CJK_TIMES = "周一 周二 周三 周四 周五 每天 每周 每月 明天 下周 上个月 今年".split(" ");

/** Generates notes and queries deterministically from a seed. */
export class NoteGenerator {
  readonly #random: () => number;
  #count = 0;
  readonly workspaces: string[];

  constructor(seed: number, options: { workspaces?: number } = {}) {
    this.#random = seededRandom(seed);
    const count = options.workspaces ?? 24;
    this.workspaces = [
      "default",
      ...Array.from({ length: count - 1 }, (_, i) => `${this.#pick(SERVICES)}-${i}`),
    ];
  }

  #pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.#random() * list.length)];
  }

  #int(min: number, max: number): number {
    return min + Math.floor(this.#random() * (max - min + 1));
  }

  #sentence(): string {
    const r = this.#random();
    const service = this.#pick(SERVICES);
    const noun = this.#pick(NOUNS);
    if (r < 0.2) {
      return `The ${service} ${noun} ${this.#pick(VERBS)} every ${this.#pick(WEEKDAYS)} at ${
        this.#int(0, 23)
      }:${String(this.#int(0, 59)).padStart(2, "0")} UTC.`;
    }
    if (r < 0.4) {
      return `${capitalize(this.#pick(PEOPLE))} owns the ${
        this.#pick(ADJECTIVES)
      } ${noun} of ${service}; ask ${capitalize(this.#pick(PEOPLE))} when they are out.`;
    }
    if (r < 0.55) {
      return `Set the ${noun} ${this.#pick(NOUNS)} to ${this.#int(1, 5000)} ms for ${service}, ` +
        `because the ${this.#pick(ADJECTIVES)} ${this.#pick(NOUNS)} ${
          this.#pick(VERBS)
        } otherwise.`;
    }
    if (r < 0.7) {
      return `We decided to move ${service} from ${this.#pick(NOUNS)} v${this.#int(1, 9)} to v${
        this.#int(2, 12)
      } after the ${this.#pick(NOUNS)} ${this.#pick(NOUNS)} in ${2019 + this.#int(0, 6)}.`;
    }
    if (r < 0.85) {
      return `${capitalize(this.#pick(PEOPLE))} prefers ${this.#pick(ADJECTIVES)} ${noun}s over ${
        this.#pick(ADJECTIVES)
      } ${this.#pick(NOUNS)}s for the ${service} ${this.#pick(NOUNS)}.`;
    }
    return `Do not ${this.#pick(VERBS).replace(/s$/, "")} the ${service} ${noun} without a ${
      this.#pick(NOUNS)
    } review; it ${this.#pick(VERBS)} the ${this.#pick(NOUNS)} ${this.#pick(NOUNS)}.`;
  }

  #cjkSentence(): string {
    const w = () => this.#pick(CJK_WORDS);
    const r = this.#random();
    if (r < 0.35) {
      return `${this.#pick(CJK_PEOPLE)}负责${this.#pick(SERVICES)}的${w()}和${w()}，${
        this.#pick(CJK_TIMES)
      }检查一次。`;
    }
    if (r < 0.7) {
      return `${this.#pick(CJK_TIMES)}${this.#int(1, 23)}点以后才能${w()}，否则${w()}会${w()}。`;
    }
    return `${w()}的${w()}上限是${this.#int(1, 9000)}，超过后${
      this.#pick(CJK_PEOPLE)
    }会收到${w()}。`;
  }

  #markdownNote(): string {
    const parts: string[] = [];
    const sections = this.#int(1, 4);
    for (let s = 0; s < sections; s++) {
      if (sections > 1) parts.push(`## ${capitalize(this.#pick(NOUNS))} ${this.#pick(NOUNS)}`);
      const sentences = Array.from({ length: this.#int(2, 8) }, () => this.#sentence());
      parts.push(sentences.join(" "));
      if (this.#random() < 0.25) {
        const rows = Array.from(
          { length: this.#int(2, 5) },
          () => `| ${this.#pick(SERVICES)} | ${this.#pick(PEOPLE)} | ${this.#int(1, 99)} |`,
        );
        parts.push(["| service | owner | slo |", "|---|---|---|", ...rows].join("\n"));
      }
    }
    return parts.join("\n\n");
  }

  /** The next note. */
  next(): GeneratedNote {
    this.#count++;
    const r = this.#random();
    const kind: GeneratedNote["kind"] = r < 0.45
      ? "fact"
      : r < 0.7
      ? "note"
      : r < 0.82
      ? "cjk_fact"
      : r < 0.9
      ? "cjk_note"
      : "mixed";
    let content: string;
    let subject: string;
    switch (kind) {
      case "fact":
        content = Array.from({ length: this.#int(1, 2) }, () => this.#sentence()).join(" ");
        subject = `${this.#pick(SERVICES)} ${this.#pick(NOUNS)}`;
        break;
      case "note":
        content = this.#markdownNote();
        subject = `${this.#pick(SERVICES)} ${this.#pick(NOUNS)} notes`;
        break;
      case "cjk_fact":
        content = this.#cjkSentence();
        subject = `${this.#pick(CJK_WORDS)}${this.#pick(CJK_WORDS)}`;
        break;
      case "cjk_note":
        content = Array.from({ length: this.#int(3, 12) }, () => this.#cjkSentence()).join("");
        subject = `${this.#pick(CJK_WORDS)}记录`;
        break;
      default:
        content = `${this.#sentence()} ${this.#cjkSentence()} ${this.#sentence()}`;
        subject = `${this.#pick(SERVICES)} ${this.#pick(CJK_WORDS)}`;
    }
    // A counter keeps every note unique, so none is replayed as a byte-identical duplicate.
    content += kind.startsWith("cjk") ? `（编号 ${this.#count}）` : ` (ref ${this.#count})`;
    const tags = Array.from({ length: this.#int(0, 4) }, () => this.#pick(TAGS));
    const day = Date.UTC(2023, 0, 1) + this.#int(0, 3 * 365) * 86_400_000;
    return {
      subject,
      content,
      workspace: this.#pick(this.workspaces),
      tags: [...new Set(tags)],
      eventTime: new Date(day).toISOString(),
      kind,
    };
  }

  /**
   * A query an agent might ask about `note`: two or three of its words (English), or one or
   * two of its words (Chinese); one query in ten uses words from elsewhere.
   */
  queryFor(note: GeneratedNote): string {
    if (this.#random() < 0.1) {
      return `${this.#pick(NOUNS)} ${this.#pick(ADJECTIVES)} ${this.#pick(SERVICES)}`;
    }
    const cjk = note.content.match(/[\u4e00-\u9fff]{2,}/g) ?? [];
    if (note.kind.startsWith("cjk") && cjk.length > 0) {
      const word = CJK_WORDS.filter((w) => note.content.includes(w));
      const picked = word.length > 0 ? word : cjk.map((run) => run.slice(0, 2));
      return Array.from({ length: this.#int(1, 2) }, () => this.#pick(picked)).join(" ");
    }
    const words = note.content.toLowerCase().match(/[a-z][a-z-]{3,}/g) ?? ["deploy"];
    return Array.from({ length: this.#int(2, 3) }, () => this.#pick(words)).join(" ");
  }
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

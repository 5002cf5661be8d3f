/**
 * Words that are people's names on their own, for the two places capitalization cannot tell:
 * an English sentence's first word ("Alice approved the budget.": "Alice" opens the sentence
 * exactly as "Deploys" or "Yesterday" would) and Chinese, which has no capitals at all
 * (张伟负责支付服务). Written for mema by hand: common given names (English-speaking, European,
 * Latin American, Indian, and romanized East Asian), and the common Chinese surnames.
 *
 * A given name that is also an ordinary English word a sentence may start with ("Will", "May",
 * "Mark", "Grace", "Max", "Ray", "Chase", "Summer") is left out: at a sentence's start it is
 * more often the word. Such a name is still found anywhere else in a sentence, by its capital.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isGivenName, readHanPersons } from "./person_names.ts";
 *
 * assert.equal(isGivenName("Alice"), true);
 * assert.equal(isGivenName("Deploys"), false);
 * assert.deepEqual(readHanPersons("张伟负责支付服务。").map((m) => m.words), ["张伟"]);
 * ```
 * @module
 */

const GIVEN_NAMES = new Set(
  `aaron abby abdul abigail adam adrian ahmed aiden aisha alan albert alberto alejandro alex
  alexa alexander alexandra alexis alfred ali alice alicia alison allison alvaro amanda amelia
  amir amit amy ana anand andre andrea andreas andres andrew andy angela angelo anil anita ann
  anna anne annie anthony antonio anya arjun arnav arthur ashley audrey ava barbara beatrice
  ben benjamin bernard beth betty bianca bob bobby brad bradley brandon brenda brian bruce
  bruno caitlin caleb calvin cameron camila carl carla carlos carmen carol caroline carolyn
  casey catherine cecilia charles charlie charlotte chen chloe chris christian christina
  christine christopher claire clara claudia colin connor craig cynthia daisy dale dan dana
  daniel daniela danielle danny darren dave david deborah debra deepak dennis derek diana
  diego dimitri dinesh dmitri dominic donald donna doris dorothy doug douglas duncan dylan
  eddie edgar eduardo edward eileen elaine eleanor elena eli elijah elizabeth ella ellen
  ellie emily emma enrique eric erica erik erin ethan eugene eva evan evelyn fatima federica
  felix fernando fiona francesca francesco francis francisco frank fred freddie frederick
  gabriel gabriela gareth gary gemma george georgia gerald gina giovanni giulia giuseppe
  gloria gordon graham greg gregory hannah hans harold harper harry harvey hassan heidi
  helen henry hiroshi hugo ian igor ingrid irene isaac isabel isabella isabelle ivan jack
  jackie jacob jacqueline jake james jamie jan jane janet janice jared jasmine jason javier
  jean jeff jeffrey jen jennifer jenny jeremy jerry jess jessica jill jim jimmy joan joanna
  joanne joe joel johan johannes john johnny jon jonathan jordan jorge jose joseph josh
  joshua joyce juan judith judy julia julian julie juliet justin kai karen karim karl kate
  katherine kathleen kathryn kathy katie kavya keith kelly ken kenji kenneth kevin kim kimberly
  klaus kumar kyle lakshmi larry laura lauren leah lena leo leon leonardo liam lily linda lisa
  logan lorenzo louis louise lucas lucia lucy luis luke lydia madison maggie mahmoud manuel
  marco marcus margaret maria mariana marie marina mario marion martha martin mary mateo
  matthew matt matteo maureen megan mei mel melanie melissa mia michael michelle miguel mike
  mila miriam mohamed mohammed monica morgan muhammad nadia nancy naomi natalie natasha nate
  nathan neha neil nicholas nick nicola nicole nikhil nina noah noel nora oleg olga oliver
  olivia omar oscar owen pablo pamela paolo patricia patrick paul paula pedro peter philip
  phillip pierre pooja priya rachel rafael rahul raj rajesh ramon raquel rebecca reza
  ricardo richard rick ricky rita robert roberto robin roger rohan ronald rosa ross ruth ryan
  sabrina sally samantha samuel sandra sanjay sara sarah satoshi scott sean sebastian sergei
  sergio shannon sharon shawn sheila shirley simon sofia sonia sophia sophie stefan
  stephanie stephen steve steven stuart susan suzanne sven takeshi tanya tara ted teresa
  terry thomas tim timothy tina todd tom tommy tony tyler valentina valeria vanessa vera
  veronica vicky vijay vikram vincent virginia vivian walter wayne wei wendy william xavier
  yasmin yuki yusuf yvonne zachary zara zoe`.split(/\s+/u),
);

/** True when `word` (capitalized as written) is a common given name; see the module note. */
export function isGivenName(word: string): boolean {
  return /^[A-Z][a-z]+$/u.test(word) && GIVEN_NAMES.has(word.toLowerCase());
}

/**
 * Common Chinese surnames. Left out: those that are everyday function words (于 "at", 向
 * "towards", 万 "ten thousand", 付 "pay", 常 "often"), which a sentence uses far more often
 * than it names someone by them.
 */
const SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡" +
  "余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚" +
  "邵钱严覃武戴莫孔汤";
const COMPOUND_SURNAMES = "欧阳|司马|上官|诸葛|东方|皇甫|令狐|慕容|宇文|长孙";

/** Verbs a person does: the word after a name that says it is one (张伟负责, 李娜决定). */
const PERSON_VERBS = "负责|说|认为|觉得|决定|批准|同意|反对|提出|提议|建议|表示|要求|希望|打算|" +
  "告诉|通知|回答|回复|完成|修复|发现|编写|部署|维护|审核|审批|评审|确认|提交|合并|加入|离开|担任|" +
  "带领|主导|参与|汇报|接手|开发|设计|安排|邀请|联系|发布";
/** Titles after a surname or a full name (王经理, 张伟老师). */
const TITLES = "经理|总监|老师|先生|女士|博士|同学|师傅|工程师|主任|教授|律师|医生|组长";

/**
 * Words that start with a surname's character and name no one: the verbs above would read
 * them as people ("方案设计", "任务完成", "许多人说").
 */
const NOT_PERSONS = new Set(
  `方案 方法 方式 方面 方向 高可用 高性能 高并发 高级 高效 高速 周期 周末 周报 周会 马上 黄金 金额
  金融 石油 程序 程度 任务 任何 任意 许多 陆续 曾经 董事 董事会 韩国 范围 余额 严重 严格 夏天 夏季
  白天 段落 顾客 顾问 钱包 孔子 江湖 龙头 毛利 史上 雷达 熊猫 田地 宋体 唐朝 邱比特`.split(/\s+/u),
);

/** Characters that never stand in a given name: particles, pronouns, numerals. */
const NOT_IN_GIVEN =
  "的是在和与了把被由对从向给将也都就还及或我你他她它们这那个有为上下中不没一二两三四五六七八九十零";

const TITLE_AT = new RegExp(`^(?:${TITLES})`, "u");

const HAN_PERSON = new RegExp(
  String.raw`(?<=^|[^\p{Script=Han}]|[和与跟同由给让请向对把被及]|告诉|通知|感谢|联系|邀请)` +
    String.raw`((?:${COMPOUND_SURNAMES}|[${SURNAMES}])` +
    String.raw`(?:(?![${NOT_IN_GIVEN}])\p{Script=Han}){0,2}?)` +
    String.raw`(?=${TITLES}|${PERSON_VERBS})`,
  "gu",
);

/** A person's name read from Chinese text, at its UTF-16 offsets. */
export interface HanPerson {
  words: string;
  start: number;
  end: number;
}

/**
 * Chinese people named in `text`: a common surname and one or two more characters, right
 * before a verb a person does or a title, and not a word the list above knows. A bare
 * surname counts only with its title, which its words then hold (王经理).
 */
export function readHanPersons(text: string): HanPerson[] {
  const out: HanPerson[] = [];
  for (const match of text.matchAll(HAN_PERSON)) {
    const name = match[1];
    if ([...NOT_PERSONS].some((word) => name.startsWith(word))) continue;
    // A bare surname is a name only with its title, and then the title is part of it (王经理).
    const title = name.length === 1 ? TITLE_AT.exec(text.slice(match.index + 1))?.[0] : "";
    if (title === undefined) continue;
    const words = name + title;
    out.push({ words, start: match.index, end: match.index + words.length });
  }
  return out;
}

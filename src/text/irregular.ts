/**
 * The forms of common irregular English verbs ("go" / "went", "buy" / "bought"): a suffix
 * stemmer cannot join them, and a question puts the verb in its base form after "did" ("why
 * did she choose it?") where what was said holds the past ("I chose them because…"). Recall
 * searches a query's base form together with its irregular past forms. Only base forms are
 * expanded: a past form in a query ("made friends") is already what the text says, and
 * widening it to the base ("make") measured worse. Verbs whose forms are common other words
 * ("found", "left" stay; "lay", "lit", "bound", "ground", "wound", "rose", "shot", "bit",
 * "tore", "sprang" are left out) and the auxiliaries (be, do, have: function words) are not
 * listed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { verbForms } from "./irregular.ts";
 *
 * assert.deepEqual(verbForms("choose"), ["choose", "chose", "chosen"]);
 * assert.deepEqual(verbForms("chose"), []);
 * ```
 * @module
 */

/** Base form, then its irregular forms (past, past participle, the odd third person). */
const VERBS: readonly (readonly string[])[] = [
  ["arise", "arose", "arisen"],
  ["awake", "awoke", "awoken"],
  ["become", "became"],
  ["begin", "began", "begun"],
  ["bend", "bent"],
  ["bleed", "bled"],
  ["blow", "blew", "blown"],
  ["break", "broke", "broken"],
  ["breed", "bred"],
  ["bring", "brought"],
  ["build", "built"],
  ["burn", "burnt"],
  ["buy", "bought"],
  ["catch", "caught"],
  ["choose", "chose", "chosen"],
  ["cling", "clung"],
  ["come", "came"],
  ["creep", "crept"],
  ["deal", "dealt"],
  ["dig", "dug"],
  ["draw", "drew", "drawn"],
  ["dream", "dreamt"],
  ["drink", "drank", "drunk"],
  ["drive", "drove", "driven"],
  ["eat", "ate", "eaten"],
  ["fall", "fell", "fallen"],
  ["feed", "fed"],
  ["feel", "felt"],
  ["fight", "fought"],
  ["find", "found"],
  ["flee", "fled"],
  ["fly", "flew", "flown"],
  ["forbid", "forbade", "forbidden"],
  ["forget", "forgot", "forgotten"],
  ["forgive", "forgave", "forgiven"],
  ["freeze", "froze", "frozen"],
  ["get", "got", "gotten"],
  ["give", "gave", "given"],
  ["go", "goes", "went", "gone"],
  ["grow", "grew", "grown"],
  ["hang", "hung"],
  ["hear", "heard"],
  ["hide", "hid", "hidden"],
  ["hold", "held"],
  ["keep", "kept"],
  ["kneel", "knelt"],
  ["know", "knew", "known"],
  ["lead", "led"],
  ["lean", "leant"],
  ["leap", "leapt"],
  ["learn", "learnt"],
  ["leave", "left"],
  ["lend", "lent"],
  ["lose", "lost"],
  ["make", "made"],
  ["mean", "meant"],
  ["meet", "met"],
  ["pay", "paid"],
  ["prove", "proven"],
  ["ride", "rode", "ridden"],
  ["ring", "rang", "rung"],
  ["run", "ran"],
  ["say", "says", "said"],
  ["see", "saw", "seen"],
  ["seek", "sought"],
  ["sell", "sold"],
  ["send", "sent"],
  ["shake", "shook", "shaken"],
  ["shine", "shone"],
  ["show", "shown"],
  ["shrink", "shrank", "shrunk"],
  ["sing", "sang", "sung"],
  ["sink", "sank", "sunk"],
  ["sit", "sat"],
  ["sleep", "slept"],
  ["slide", "slid"],
  ["speak", "spoke", "spoken"],
  ["speed", "sped"],
  ["spend", "spent"],
  ["spin", "spun"],
  ["stand", "stood"],
  ["steal", "stole", "stolen"],
  ["stick", "stuck"],
  ["sting", "stung"],
  ["stink", "stank", "stunk"],
  ["strike", "struck", "stricken"],
  ["swear", "swore", "sworn"],
  ["sweep", "swept"],
  ["swim", "swam", "swum"],
  ["swing", "swung"],
  ["take", "took", "taken"],
  ["teach", "taught"],
  ["tell", "told"],
  ["think", "thought"],
  ["throw", "threw", "thrown"],
  ["understand", "understood"],
  ["wake", "woke", "woken"],
  ["wear", "wore", "worn"],
  ["weave", "wove", "woven"],
  ["weep", "wept"],
  ["win", "won"],
  ["write", "wrote", "written"],
];

const GROUP = new Map<string, readonly string[]>();
for (const forms of VERBS) for (const form of forms) GROUP.set(form, forms);

/**
 * Every form of the irregular verb whose base form `word` is (lower case; the "-s" and
 * "-ing" forms of a base count: "chooses", "choosing"), the base first; empty for any other
 * word, a past form included.
 */
export function verbForms(word: string): readonly string[] {
  const direct = GROUP.get(word);
  if (direct) {
    const base = direct[0];
    return word === base || word === `${base}s` || word === `${base}es` ? direct : [];
  }
  const bases: string[] = [];
  if (word.endsWith("ing")) {
    const stem = word.slice(0, -3);
    bases.push(stem, `${stem}e`);
    if (/(.)\1$/.test(stem)) bases.push(stem.slice(0, -1));
  }
  if (word.endsWith("es")) bases.push(word.slice(0, -2));
  if (word.endsWith("s")) bases.push(word.slice(0, -1));
  for (const base of bases) {
    const forms = GROUP.get(base);
    if (forms && forms[0] === base) return forms;
  }
  return [];
}

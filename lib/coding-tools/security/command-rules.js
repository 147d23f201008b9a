'use strict'
// Command rules over the parsed command (API.md section 9, Decision 7): the native shell
// analysis yields every simple command once; host rules (strings and JavaScript RegExps) and
// the default deny rules then apply to each of them.
const { analyzeShellCommandAsync, analysisLayoutWords, commandVerdict, commandVerdictWords, globWordCouldBe } = require('../../native.js')
const { analyzeIntoBuffer, fromJson } = require('./analysis-layout.js')

// The codes of the verdict crossing, from the engine (read once).
const WORDS = commandVerdictWords()
const { say } = require('../../engine-words.js')
const CODE = WORDS.partCodes
const FLAG = WORDS.flags
const V = WORDS.layout

const ACTIONS = new Set(WORDS.actions)
// The option effects' names by code (the analysis layout's list).
const EFFECT_CODES = analysisLayoutWords().effects

/** The reference's raw-string metacharacter test, kept as is. */
function hasShellMetacharacters(command) {
  return /[;|&`$()<>]|\\n|\$\(/.test(command)
}

const NOT_A_STRING = () => ({ parts: [], redirects: [], metacharacters: true, unsupported: say('commandNotAString') })

/** The native analysis of `command` (one crossing, on this thread, as numbers). */
function analyzeCommand(command) {
  if (typeof command !== 'string') return NOT_A_STRING()
  return analyzeIntoBuffer(command)
}

/** The native analysis of `command` on the native blocking pool (for long commands). */
async function analyzeCommandAsync(command) {
  if (typeof command !== 'string') return NOT_A_STRING()
  return fromJson(await analyzeShellCommandAsync(command))
}

/**
 * A matcher for one rule: a string names a command prefix on word boundaries; a RegExp is
 * tested against the part's text. Deny and requireApproval rules also match the part's
 * normalised spelling (the program's name without its directory or quotes, the words
 * unquoted: `/usr/bin/touch`, `'touch'` and `t\ouch` all meet a `touch` rule); allow rules
 * match only what was written, so `./ls` is not allowed by an `ls` rule.
 */
function compileRule(rule) {
  const p = rule.pattern
  const loose = rule.action !== 'allow'
  if (typeof p === 'string') {
    const want = ruleWords(p)
    return (part) => want.length <= part.argv.length && leadingWordsMatch(want, part, want.length, loose)
  }
  return (part) => {
    p.lastIndex = 0
    if (p.test(part.text)) return true
    if (!loose || typeof part.name !== 'string') return false
    p.lastIndex = 0
    return p.test([part.name, ...part.argv.slice(1)].join(' '))
  }
}

/** `part` without the words of its option effect (what a rule that names the form no longer matches). */
function withoutEffect(part) {
  const drop = new Set(part.effect.words)
  const argv = part.argv.filter((_, i) => !drop.has(i))
  return { ...part, argv, text: argv.join(' '), name: drop.has(0) ? argv[0] : part.name }
}

/** The words of a string rule (`'git push'` is `['git', 'push']`). */
function ruleWords(pattern) {
  return pattern.trim().split(/\s+/).filter(Boolean)
}

/**
 * Whether the first `count` words of `part` are `want`'s; with `loose`, the program word may
 * also match by its normalised name (`/usr/bin/touch` is `touch`).
 */
function leadingWordsMatch(want, part, count, loose) {
  for (let i = 0; i < count; i++) {
    if (part.argv[i] !== want[i] && !(loose && i === 0 && part.name === want[0])) return false
  }
  return true
}

/**
 * Whether a deny rule could match `part` through its open word (a glob or expansion bash
 * resolves when the command runs), given that it does not match as written. A string rule
 * could when the words before the open one match and the open word could be the rule's word
 * at its place (an expansion could be anything, and may split into the rest; a glob could be
 * what it matches). A RegExp cannot be checked against every value: it could match when the
 * program word is open, and sees open operands as written.
 */
function compileOpenRule(rule) {
  const p = rule.pattern
  if (typeof p !== 'string') return (part) => part.open.index === 0
  const want = ruleWords(p)
  return (part) => {
    const { index, any } = part.open
    if (index >= want.length || !leadingWordsMatch(want, part, index, true)) return false
    return any || globWordCouldBe(part.argv[index], want[index], index === 0)
  }
}

const compiled = new WeakMap()

/** The rules with their matchers, validated once per rules array. */
function validateRules(rules) {
  if (rules === undefined || rules === null) return []
  if (!Array.isArray(rules)) throw new TypeError(say('commandRulesArray'))
  const cached = compiled.get(rules)
  if (cached && cached.length === rules.length && cached.every((c, i) => c.rule === rules[i] && c.pattern === rules[i].pattern && c.action === rules[i].action)) return cached
  const out = rules.map((r) => {
    if (!r || (typeof r.pattern !== 'string' && !(r.pattern instanceof RegExp)) || !ACTIONS.has(r.action)) {
      throw new TypeError(say('commandRuleShape'))
    }
    const couldMatch = r.action === 'deny' ? compileOpenRule(r) : null
    return { rule: r, pattern: r.pattern, action: r.action, matches: compileRule(r), couldMatch }
  })
  compiled.set(rules, out)
  return out
}

/**
 * The verdict on an analysed command and, per simple command, what decided it. Host rules are
 * matched here (they may be RegExps); the engine orders the checks and words the reasons.
 * `coveredByAllowRules` is true when host allow rules cover every part and nothing else
 * (redirection, unsupported syntax) needs a person; `verdict` is the engine's number.
 */
function judge(analysis, rules, denyMetacharacters) {
  const parts = analysis.parts.map((part) => {
    // The first rule that matches as written, or a deny rule that could match what an open
    // word becomes (a deny must hold for every value).
    for (let index = 0; index < rules.length; index++) {
      const r = rules[index]
      if (r.matches(part)) {
        // An allow rule covers an option effect only when it names the form: without the
        // effect's words, it would no longer match.
        if (r.action === 'allow' && part.effect !== undefined && r.matches(withoutEffect(part))) {
          // A later allow rule may name the form (`git` then `git reset --hard`).
          const bare = withoutEffect(part)
          for (let later = index + 1; later < rules.length; later++) {
            const n = rules[later]
            if (n.action === 'allow' && n.matches(part) && !n.matches(bare)) return { part, verdict: 'allow', rule: n.rule, index: later, code: CODE.allow }
          }
          return { part, verdict: 'requireApproval', rule: r.rule, index, effect: part.effect, code: CODE.effect }
        }
        return { part, verdict: r.action, rule: r.rule, index, code: CODE[r.action] }
      }
      if (part.open !== undefined && r.couldMatch !== null && r.couldMatch(part)) {
        return { part, verdict: 'deny', rule: r.rule, index, open: part.open, code: CODE.openDeny }
      }
    }
    if (part.deny) {
      const p = { part, verdict: 'deny', defaultDeny: part.deny, code: part.denyOpen ? CODE.openDefaultDeny : CODE.defaultDeny }
      if (part.denyOpen) p.open = part.open
      return p
    }
    return { part, verdict: 'unmatched', code: CODE.unmatched }
  })
  let codes = ''
  for (const p of parts) codes += p.code
  const flags =
    (analysis.refused ? FLAG.refused : 0) |
    (analysis.deny ? FLAG.deny : 0) |
    (analysis.unsupported ? FLAG.unsupported : 0) |
    (analysis.redirects.length > 0 ? FLAG.fileRedirects : 0) |
    (analysis.metacharacters === true ? FLAG.metacharacters : 0) |
    (denyMetacharacters !== false ? FLAG.denyMetacharacters : 0)
  const v = commandVerdict(codes, flags)
  const action = WORDS.actions[(v >>> V.actionShift) & V.actionMask]
  const reason = (v >>> V.reasonShift) & V.reasonMask
  const part = v >>> V.partShift
  let evaluation
  switch (WORDS.reasons[reason]) {
    case 'rule':
      evaluation = { action, reason: parts[part].rule.reason }
      break
    case 'refused':
      evaluation = { action, reason: analysis.refused }
      break
    case 'open': {
      const p = parts[part]
      const rule = p.rule ? JSON.stringify(String(p.rule.pattern)) + (p.rule.reason ? ` (${p.rule.reason})` : '') : p.defaultDeny
      evaluation = { action, reason: WORDS.reasonTexts[reason].replace('{word}', () => JSON.stringify(p.open.text)).replace('{rule}', () => rule) }
      break
    }
    case 'effect': {
      const { option, effect } = parts[part].effect
      const does = WORDS.effectTexts[EFFECT_CODES.indexOf(effect)]
      evaluation = { action, reason: WORDS.reasonTexts[reason].replace('{option}', () => JSON.stringify(option)).replace('{effect}', () => does) }
      break
    }
    case 'unanalyzed':
      evaluation = { action, reason: WORDS.reasonTexts[reason] + analysis.unsupported }
      break
    case 'none':
      evaluation = { action }
      break
    default:
      evaluation = { action, reason: WORDS.reasonTexts[reason] }
  }
  // `verdict`: the engine's number itself, which the approval machine reads back.
  return { evaluation, parts, coveredByAllowRules: ((v >>> V.coveredShift) & 1) !== 0, verdict: v }
}

/** `{action, reason?}` for `command` under `rules` (first matching host rule per part wins). */
function evaluateCommandRules(command, rules, options) {
  return judge(analyzeCommand(command), validateRules(rules), options?.denyMetacharacters).evaluation
}

/** Which part of `command` matched which rule, and the verdict. */
function explainCommand(command, options) {
  const rules = validateRules(options?.rules ?? options?.commandRules)
  const analysis = analyzeCommand(command)
  const { evaluation, parts } = judge(analysis, rules, options?.denyMetacharacters)
  return {
    ...evaluation,
    parts: parts.map((p) => ({
      text: p.part.text,
      argv: p.part.argv,
      derived: p.part.derived === true,
      verdict: p.verdict,
      ...(p.rule ? { rule: { index: p.index, pattern: String(p.rule.pattern), action: p.rule.action, reason: p.rule.reason } } : {}),
      ...(p.defaultDeny ? { defaultDeny: p.defaultDeny } : {}),
      ...(p.open ? { open: { index: p.open.index, text: p.open.text } } : {}),
      ...(p.effect ? { effect: { effect: p.effect.effect, option: p.effect.option } } : {}),
    })),
    redirects: analysis.redirects.length ? analysis.redirects : [],
    metacharacters: analysis.metacharacters,
    ...(analysis.unsupported ? { unsupported: analysis.unsupported } : {}),
    ...(analysis.deny ? { defaultDeny: analysis.deny } : {}),
  }
}

module.exports = {
  analyzeCommand,
  analyzeCommandAsync,
  judge,
  validateRules,
  evaluateCommandRules,
  explainCommand,
  hasShellMetacharacters,
}

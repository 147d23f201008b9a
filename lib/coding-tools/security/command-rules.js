'use strict'
// Command rules over the parsed command (API.md section 9, Decision 7). The engine matches
// them (crates/engine/src/policy/rules.rs): it analyses the command into every simple command,
// matches string rules, orders the checks and words every reason. A RegExp rule is the one
// thing only JavaScript can run: for a rule set with any, the engine names the texts to test
// and this file answers one byte per pattern and text.
const { NativeCommandRules, commandRuleActions } = require('../../native.js')
const { say } = require('../../engine-words.js')

const ACTION_NAMES = commandRuleActions()
const ACTIONS = new Set(ACTION_NAMES)

// Reused buffers of the rules' crossings (each call fills what it reads): the subjects'
// lengths, the verdict's action and rule, and the RegExp answers.
const LENGTHS = new Uint32Array(1 + 3 * 256)
const VERDICT = new Uint32Array(2)
let answers = new Uint8Array(256)

/** The reference's raw-string metacharacter test, kept as is. */
function hasShellMetacharacters(command) {
  return /[;|&`$()<>]|\\n|\$\(/.test(command)
}

const compiled = new WeakMap()

/**
 * The rules as the engine holds them, read once per rules array: `{ rules, engine, regexps }`
 * (`regexps`: each RegExp rule's pattern and whether it is an allow rule, in order).
 */
function validateRules(given) {
  const rules = given === undefined || given === null ? [] : given
  if (!Array.isArray(rules)) throw new TypeError(say('commandRulesArray'))
  const cached = compiled.get(rules)
  if (cached && cached.rules.length === rules.length && cached.rules.every((c, i) => c.rule === rules[i] && c.pattern === rules[i].pattern && c.action === rules[i].action)) return cached
  const kept = rules.map((r) => {
    if (!r || (typeof r.pattern !== 'string' && !(r.pattern instanceof RegExp)) || !ACTIONS.has(r.action)) {
      throw new TypeError(say('commandRuleShape'))
    }
    return { rule: r, pattern: r.pattern, action: r.action }
  })
  const engine = new NativeCommandRules(
    kept.map((k) => (typeof k.pattern === 'string' ? k.pattern : null)),
    kept.map((k) => String(k.pattern)),
    kept.map((k) => k.action),
    kept.map((k) => (k.rule.reason ? String(k.rule.reason) : null)),
    kept.map((k) => k.rule.reason !== undefined && k.rule.reason !== null),
  )
  const regexps = kept.filter((k) => typeof k.pattern !== 'string').map((k) => ({ pattern: k.pattern, allow: k.action === 'allow' }))
  const out = { rules: kept, engine, regexps }
  if (rules === given) compiled.set(rules, out)
  return out
}

/**
 * The answers of the RegExp rules for the engine's `subjects` (three texts per simple
 * command: as written, normalised, without its option effect). An allow rule matches only
 * what was written (and, to name an option effect, the text without it); a deny or approval
 * rule also matches the normalised spelling.
 */
function hostMatches(regexps, subjects, reuse = false) {
  if (!subjects) return null
  const n = subjects.length
  const need = regexps.length * n
  if (reuse && answers.length < need) answers = new Uint8Array(need * 2)
  const out = reuse ? answers : new Uint8Array(need)
  for (let i = 0; i < regexps.length; i++) {
    const { pattern, allow } = regexps[i]
    const at = i * n
    // Per simple command: as written (every rule), normalised (deny and approval rules),
    // without its option effect (allow rules).
    for (let s = 0; s < n; s += 3) {
      pattern.lastIndex = 0
      out[at + s] = pattern.test(subjects[s]) ? 1 : 0
      const other = allow ? s + 2 : s + 1
      out[at + (allow ? s + 1 : s + 2)] = 0
      pattern.lastIndex = 0
      out[at + other] = pattern.test(subjects[other]) ? 1 : 0
    }
  }
  return out
}

/** The texts of the engine's `subjects` crossing: joined, cut by `LENGTHS`; or an array. */
function splitSubjects(crossed) {
  if (typeof crossed !== 'string') return crossed
  const out = new Array(LENGTHS[0])
  for (let i = 0, at = 0; i < out.length; i++) {
    const end = at + LENGTHS[1 + i]
    out[i] = crossed.slice(at, end)
    at = end
  }
  return out
}

/** The answers for `command` (in a reused buffer), or null when the rules have no RegExp. */
function answersFor(compiledRules, command) {
  if (compiledRules.regexps.length === 0) return null
  const crossed = compiledRules.engine.subjects(command, LENGTHS)
  return crossed === null || crossed === undefined ? null : hostMatches(compiledRules.regexps, splitSubjects(crossed), true)
}

/** The evaluation's reason: the host rule's own `reason` (as given), or the engine's words. */
function reasonOf(compiledRules, verdict) {
  return verdict.rule === undefined || verdict.rule === null ? verdict.reason : compiledRules.rules[verdict.rule].rule.reason
}

/** The `{action, reason}` a verdict describes (`reason` left out when there is none). */
function evaluation(compiledRules, verdict) {
  const hasRule = verdict.rule !== undefined && verdict.rule !== null
  if (!hasRule && (verdict.reason === undefined || verdict.reason === null)) return { action: verdict.action }
  return { action: verdict.action, reason: reasonOf(compiledRules, verdict) }
}

/** `{action, reason?}` for `command` under `rules` (first matching host rule per part wins). */
function evaluateCommandRules(command, rules, options) {
  const compiledRules = validateRules(rules)
  const reason = compiledRules.engine.evaluate(command, options?.denyMetacharacters !== false, answersFor(compiledRules, command), VERDICT)
  return evaluation(compiledRules, { action: ACTION_NAMES[VERDICT[0]], reason, rule: VERDICT[1] === 0 ? null : VERDICT[1] - 1 })
}

/** Which part of `command` matched which rule, and the verdict. */
function explainCommand(command, options) {
  const compiledRules = validateRules(options?.rules ?? options?.commandRules)
  const e = JSON.parse(compiledRules.engine.explain(command, options?.denyMetacharacters !== false, answersFor(compiledRules, command)))
  const ruleOf = (index) => {
    const r = compiledRules.rules[index].rule
    return { index, pattern: String(r.pattern), action: r.action, reason: r.reason }
  }
  return {
    ...evaluation(compiledRules, e),
    parts: e.parts.map((p) => ({
      text: p.text,
      argv: p.argv,
      derived: p.derived,
      verdict: p.verdict,
      ...(p.rule !== undefined ? { rule: ruleOf(p.rule) } : {}),
      ...(p.defaultDeny ? { defaultDeny: p.defaultDeny } : {}),
      ...(p.open ? { open: p.open } : {}),
      ...(p.effect ? { effect: p.effect } : {}),
    })),
    redirects: e.redirects,
    metacharacters: e.metacharacters,
    ...(e.unsupported ? { unsupported: e.unsupported } : {}),
    ...(e.defaultDeny ? { defaultDeny: e.defaultDeny } : {}),
  }
}

module.exports = {
  validateRules,
  hostMatches,
  reasonOf,
  evaluateCommandRules,
  explainCommand,
  hasShellMetacharacters,
}

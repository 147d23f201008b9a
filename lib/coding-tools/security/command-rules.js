'use strict'
// Command rules over the parsed command (API.md section 9, Decision 7). The engine matches
// them (crates/engine/src/policy/rules.rs): it analyses the command into every simple command,
// matches string rules, orders the checks and words every reason. A RegExp rule is the one
// thing only JavaScript can run: for a rule set with any, the engine names the texts to test
// and this file answers one byte per pattern and text.
const { NativeCommandRules, commandRuleActions } = require('../../native.js')
const { say } = require('../../engine-words.js')

const ACTIONS = new Set(commandRuleActions())

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
function hostMatches(regexps, subjects) {
  if (!subjects) return null
  const out = new Uint8Array(regexps.length * subjects.length)
  regexps.forEach(({ pattern, allow }, i) => {
    const at = i * subjects.length
    for (let s = 0; s < subjects.length; s++) {
      const which = s % 3
      if (which === (allow ? 1 : 2)) continue
      pattern.lastIndex = 0
      out[at + s] = pattern.test(subjects[s]) ? 1 : 0
    }
  })
  return out
}

/** The answers for `command`, or null when the rules have no RegExp. */
function answersFor(compiledRules, command) {
  if (compiledRules.regexps.length === 0) return null
  return hostMatches(compiledRules.regexps, compiledRules.engine.subjects(command))
}

/** The evaluation's reason: the host rule's own `reason` (as given), or the engine's words. */
function reasonOf(compiledRules, verdict) {
  return verdict.rule === undefined || verdict.rule === null ? verdict.reason : compiledRules.rules[verdict.rule].rule.reason
}

/** The `{action, reason}` a verdict crossing describes (`reason` left out when there is none). */
function evaluation(compiledRules, verdict) {
  const hasRule = verdict.rule !== undefined && verdict.rule !== null
  if (!hasRule && (verdict.reason === undefined || verdict.reason === null)) return { action: verdict.action }
  return { action: verdict.action, reason: reasonOf(compiledRules, verdict) }
}

/** `{action, reason?}` for `command` under `rules` (first matching host rule per part wins). */
function evaluateCommandRules(command, rules, options) {
  const compiledRules = validateRules(rules)
  const verdict = compiledRules.engine.evaluate(command, options?.denyMetacharacters !== false, answersFor(compiledRules, command))
  return evaluation(compiledRules, verdict)
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

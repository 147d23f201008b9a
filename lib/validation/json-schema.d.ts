import type { ToolArgumentValidator, ToolValidator } from '../../index.js'

/** Options of the JSON Schema validator (API.md section 7). Bounds are positive safe integers. */
export interface JsonSchemaToolValidatorOptions {
  /** A tool without `parameters`: "allow" (default) passes, "reject" fails. */
  readonly missingSchema?: 'allow' | 'reject'
  /**
   * Errors reported per failed validation (Ajv's `allErrors` output is cut to this many). Default
   * 8, hard 64.
   */
  readonly maxErrors?: number
  /** Nesting depth of a validated instance (the root is depth 0). Default 64, hard 128. */
  readonly maxDepth?: number
  /** Properties of any one object of a validated instance. Default 1,000, hard 100,000. */
  readonly maxProperties?: number
  /**
   * Length of any string of a validated instance, in UTF-16 code units (JavaScript's `length`).
   * Default 1,000,000, hard 8,388,608.
   */
  readonly maxStringLength?: number
  /** Items of any array of a validated instance. Default 10,000, hard 100,000. */
  readonly maxArrayLength?: number
  /** Size of a schema as JSON text, in UTF-8 bytes. Default 256 KiB, hard 1 MiB. */
  readonly maxSchemaBytes?: number
  /** Nesting depth of a schema (the root is depth 0). Default 64, hard 128. */
  readonly maxSchemaDepth?: number
  /** Object keys in a whole schema, counted as properties. Default 10,000, hard 100,000. */
  readonly maxSchemaProperties?: number
  /** `$ref` keywords in a whole schema. Default 128, hard 1,024. */
  readonly maxSchemaRefs?: number
  /** Object keys in a whole schema, counted as keywords. Default 10,000, hard 100,000. */
  readonly maxSchemaKeywords?: number
  /** Compiled schemas kept per validator (a least-recently-used cache). Default 256, hard 1,024. */
  readonly maxCompiledSchemas?: number
  /** Ajv strict-mode parity (unknown keywords, strictTypes, strictRequired, formats). Default true. */
  readonly strict?: boolean
  /** With `strict: false`, assert `format` with the engine's built-in formats. Default false. */
  readonly validateFormats?: boolean
}

/** Compile counters of one validator. */
export interface JsonSchemaValidatorStats {
  /** Schemas compiled so far (cache misses). */
  readonly compiles: number
  /** Schemas in the compile cache now. */
  readonly cached: number
}

/** A ToolArgumentValidator that also reports its compile counters. */
export interface JsonSchemaArgumentValidator extends ToolArgumentValidator {
  stats(): JsonSchemaValidatorStats
}

/** A ToolValidator that also reports its compile counters. */
export type JsonSchemaToolValidator = ToolValidator & { readonly stats: () => JsonSchemaValidatorStats }

/**
 * A `ToolArgumentValidator` whose `validate(schema, value)` never throws: `{ ok: true }` or
 * `{ ok: false, errors: [{ path, message }] }` with Ajv's messages, plus `stats()`. Throws
 * `RangeError("<opt> must be a positive safe integer no greater than <hard>")` (code
 * `ERR_PRISM_VALIDATION_INVALID_LIMIT`) for a bad bound.
 */
export function createJsonSchemaArgumentValidator(options?: JsonSchemaToolValidatorOptions): JsonSchemaArgumentValidator
/**
 * A `ToolValidator` for `dispatchToolCall({ validate })`: the tool's `parameters` checked with
 * `createJsonSchemaArgumentValidator(options)`, a failure blocking with `path: message` joined by
 * `"; "` (`validation_failed`); carries the same `stats`. Throws the same `RangeError` for a bad bound.
 */
export function createJsonSchemaToolArgumentValidator(options?: JsonSchemaToolValidatorOptions): JsonSchemaToolValidator
/** The package this entry replaces. */
export declare const packageName: '@arnilo/prism-tool-validator-json-schema'

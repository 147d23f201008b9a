// A TypeScript host written against the public declarations of the JSON Schema entry.
import {
  createJsonSchemaArgumentValidator,
  createJsonSchemaToolArgumentValidator,
  packageName,
  type JsonSchemaArgumentValidator,
  type JsonSchemaToolValidatorOptions,
} from 'prism-native/validation/json-schema'
import type { ToolArgumentValidator, ToolArgumentValidationResult, ToolValidator } from 'prism-native'

const options: JsonSchemaToolValidatorOptions = { maxErrors: 4, maxCompiledSchemas: 16, strict: true, missingSchema: 'reject' }
const validator: JsonSchemaArgumentValidator = createJsonSchemaArgumentValidator(options)
const asCore: ToolArgumentValidator = validator
const result: ToolArgumentValidationResult = asCore.validate({ type: 'object', properties: { a: { type: 'string' } } }, { a: 'x' })
const firstPath: string | undefined = result.errors?.[0]?.path
const compiles: number = validator.stats().compiles

const toolValidator: ToolValidator = createJsonSchemaToolArgumentValidator({ strict: false, validateFormats: true })
const name: '@arnilo/prism-tool-validator-json-schema' = packageName

export { firstPath, compiles, toolValidator, name }

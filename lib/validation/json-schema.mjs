import cjs from './json-schema.js'
export const { createJsonSchemaArgumentValidator, createJsonSchemaToolArgumentValidator, packageName } = cjs

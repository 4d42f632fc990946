import { describe, expect, it } from 'vitest';
import { grammarSchema, withoutOptionalNulls } from '../../../src/main/runtime/grammar-schema';

const readFile = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'The file.' },
    startLine: { type: 'integer', minimum: 1 },
    range: { type: 'object', properties: { from: { type: 'integer' }, to: { type: ['integer', 'null'] } }, required: ['from'] },
  },
  required: ['path'],
  additionalProperties: false,
};

describe('tool schemas as the grammar takes them', () => {
  it('lets the model write null for an optional property instead of making it choose a value', () => {
    const converted = grammarSchema(readFile);
    expect(converted).toMatchObject({
      type: 'object',
      required: ['path', 'startLine', 'range'],
      properties: {
        path: { type: 'string', description: 'The file.' },
        startLine: { oneOf: [{ type: 'integer' }, { type: 'null' }] },
      },
    });
    // Bounds the grammar cannot say are left to the tool.
    expect(JSON.stringify(converted)).not.toContain('minimum');
  });

  it('takes those nulls out again at every depth, keeping a null the tool allows', () => {
    expect(withoutOptionalNulls({ path: 'a.txt', startLine: null, range: { from: 3, to: null } }, readFile)).toEqual({
      path: 'a.txt',
      range: { from: 3, to: null },
    });
    expect(withoutOptionalNulls({ path: 'a.txt', startLine: null, range: null }, readFile)).toEqual({ path: 'a.txt' });
    // A required property written as null is the tool's to refuse, not this function's to hide.
    expect(withoutOptionalNulls({ path: null }, readFile)).toEqual({ path: null });
  });

  it('widens what the grammar cannot express to any value, and keeps enums, consts and references', () => {
    const converted = grammarSchema({
      type: 'object',
      properties: {
        mode: { enum: ['fast', 'slow'] },
        fixed: { const: 3 },
        pattern: { type: 'string', pattern: '^a' },
        weird: { not: { type: 'string' } },
        item: { $ref: '#/$defs/item' },
      },
      required: ['mode', 'fixed', 'pattern', 'weird', 'item'],
      $defs: { item: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
    });
    expect(converted).toMatchObject({
      properties: {
        mode: { enum: ['fast', 'slow'] },
        fixed: { const: 3 },
        pattern: { type: 'string' },
        weird: { oneOf: expect.any(Array) },
        item: { $ref: '#/$defs/item' },
      },
      $defs: { item: { type: 'object', required: ['id'] } },
    });
  });
});

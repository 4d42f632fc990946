import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { overflowFrom } from '../../../src/main/providers/context-overflow';
import { classifyProviderError } from '../../../src/main/providers/provider-errors';

/*
 * Each server's words for a request that does not fit its window, as they write them: from their
 * sources where the text is there (llama.cpp tools/server/server-context.cpp, vLLM's serving engine
 * and vllm/renderers/params.py), otherwise from error reports quoting the server.
 */
const overflows: ReadonlyArray<readonly [server: string, text: string, expected: { promptTokens?: number; window?: number }]> = [
  [
    'llama.cpp, a 400 body since late 2025',
    '{"error":{"code":400,"message":"request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9412,"n_ctx":8192}}',
    { promptTokens: 9412, window: 8192 },
  ],
  [
    'llama.cpp, older, counts in fields only',
    '{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}',
    { promptTokens: 5000, window: 4096 },
  ],
  ['llama.cpp, older, the sentence alone', 'the request exceeds the available context size, try increasing it', {}],
  [
    'llama.cpp, an input it cannot split',
    'input (600 tokens) is larger than the max context size (512 tokens). skipping',
    { promptTokens: 600, window: 512 },
  ],
  ['llama.cpp, older, an input it cannot split', 'input is larger than the max context size. skipping', {}],
  [
    'vLLM, oldest',
    "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
    { promptTokens: 4000, window: 4096 },
  ],
  [
    'vLLM, the prompt alone',
    "This model's maximum context length is 32768 tokens. However, your request has 65521 input tokens. Please reduce the length of the input messages.",
    { promptTokens: 65521, window: 32768 },
  ],
  [
    'vLLM, with the room for the answer',
    "'max_tokens' or 'max_completion_tokens' is too large: 32000. This model's maximum context length is 32768 tokens and your request has 1200 input tokens (32000 > 32768 - 1200).",
    { promptTokens: 1200, window: 32768 },
  ],
  [
    'vLLM, output tokens and "at least"',
    "This model's maximum context length is 8192 tokens. However, you requested 4096 output tokens and your prompt contains at least 4097 input tokens, for a total of at least 8193 tokens. Please reduce the length of the input prompt or the number of requested output tokens.",
    { promptTokens: 4097, window: 8192 },
  ],
  [
    "vLLM's renderer",
    "You passed 9000 input tokens and requested 0 output tokens. However, the model's context length is only 8192 tokens, resulting in a maximum input length of 8192 tokens. Please reduce the length of the input prompt.",
    { promptTokens: 9000, window: 8192 },
  ],
  [
    "vLLM's renderer, counting characters",
    "You passed 100000 input characters and requested 64 output tokens. However, the model's context length is only 8192 tokens, resulting in a maximum input length of 8128 tokens (at most 81280 characters). Please reduce the length of the input prompt.",
    { window: 8192 },
  ],
  [
    'LM Studio 0.3',
    'Trying to keep the first 6269 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input',
    { promptTokens: 6269, window: 4096 },
  ],
  [
    'LM Studio later',
    'The number of tokens to keep from the initial prompt is greater than the context length (n_keep: 13055>= n_ctx: 4096). Try to load the model with a larger context length, or provide a shorter input.',
    { promptTokens: 13055, window: 4096 },
  ],
  [
    'LM Studio, mid-answer',
    'Reached context length of 32000 tokens with model (arch: gpt-oss) that does not currently support mid-generation context overflow. Try reloading with a larger context length or shortening the prompt/chat.',
    { window: 32000 },
  ],
  ['Anthropic, the prompt alone', 'prompt is too long: 213462 tokens > 200000 maximum', { promptTokens: 213462, window: 200000 }],
  [
    'Anthropic, with max_tokens',
    'input length and `max_tokens` exceed context limit: 196758 + 8192 > 200000, decrease input length or `max_tokens` and try again',
    { promptTokens: 196758, window: 200000 },
  ],
  ['Ollama, how far over (not the window)', 'prompt too long; exceeded max context length by 4021 tokens', {}],
  ['Ollama, embeddings', 'the input length exceeds the context length', {}],
  ['Ollama, without shifting', 'the prompt is longer than the context length currently available to the model', {}],
  [
    'Ollama passing on its runner’s llama.cpp body as text',
    '{"error":{"code":400,"message":"request (8889 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":8889,"n_ctx":4096}}',
    { promptTokens: 8889, window: 4096 },
  ],
];

const otherFailures: ReadonlyArray<readonly [what: string, text: string, status: number]> = [
  ['a model that does not exist', "model 'qwen3:32b' not found", 400],
  ['a rate limit that mentions tokens', 'Too many tokens, please wait before trying again.', 429],
  [
    'llama.cpp’s batch that is too small',
    'input (5000 tokens) is too large to process. increase the physical batch size (current batch size: 2048)',
    500,
  ],
  [
    'Anthropic’s max_tokens over the model’s output limit',
    'max_tokens: 200000 > 128000, which is the maximum allowed number of output tokens for claude-sonnet-4',
    400,
  ],
  // The answer's room alone is too big for the window: lowering max_tokens fixes it, not a shorter prompt.
  [
    'vLLM’s max_tokens larger than the whole window',
    'max_completion_tokens=131072cannot be greater than max_total_tokens=max_total_tokens=65536. Please request fewer output tokens.',
    400,
  ],
  ['a tool the model cannot call', 'tools are not supported by this model', 400],
  ['an overflow sentence behind a 429', 'prompt is too long: 213462 tokens > 200000 maximum', 429],
];

describe('overflowFrom', () => {
  it.each(overflows)('recognises %s', (_server, text, expected) => {
    expect(overflowFrom(text, 400)).toEqual(expected);
  });

  it.each(otherFailures)('leaves alone %s', (_what, text, status) => {
    expect(overflowFrom(text, status)).toBeNull();
  });

  it('takes a 413 for a request too large, without numbers', () => {
    expect(overflowFrom('Request exceeds the maximum allowed number of bytes.', 413)).toEqual({});
    expect(overflowFrom('{"type":"error","error":{"type":"request_too_large","message":"Request too large"}}')).toEqual({});
  });
});

const endpoint = 'http://127.0.0.1:8080/v1';
const live = new AbortController().signal;

describe('classifyProviderError on a context overflow', () => {
  it('says the request did not fit, with the numbers and the server’s words, for an HTTP error', () => {
    const body = {
      error: {
        code: 400,
        message: 'request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 9412,
        n_ctx: 8192,
      },
    };
    const error = OpenAI.APIError.generate(400, body, undefined, new Headers());
    const { error: info } = classifyProviderError(error, endpoint, live);
    expect(info.code).toBe('model_context_overflow');
    expect(info.retryable).toBeUndefined();
    expect(info.message).toContain(`did not fit the model's window at ${endpoint}`);
    expect(info.message).toContain('the prompt is 9412 tokens, the window is 8192 tokens');
    expect(info.message).toContain('request (9412 tokens) exceeds the available context size (8192 tokens)');
  });

  it('reads the counts from the body’s fields when the sentence has none', () => {
    const body = {
      error: {
        code: 400,
        message: 'the request exceeds the available context size, try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 5000,
        n_ctx: 4096,
      },
    };
    const { error: info } = classifyProviderError(OpenAI.APIError.generate(400, body, undefined, new Headers()), endpoint, live);
    expect(info).toMatchObject({
      code: 'model_context_overflow',
      message: expect.stringContaining('the prompt is 5000 tokens, the window is 4096 tokens'),
    });
  });

  it('recognises an error that arrives inside a stream, where the SDK sets no status', () => {
    // What the OpenAI SDK throws for `data: {"error": {...}}` in an SSE stream (core/streaming.js).
    const error = new OpenAI.APIError(
      undefined,
      {
        message:
          'The number of tokens to keep from the initial prompt is greater than the context length (n_keep: 13055>= n_ctx: 4096). Try to load the model with a larger context length, or provide a shorter input.',
      },
      undefined,
      new Headers(),
    );
    expect(classifyProviderError(error, endpoint, live).error).toMatchObject({
      code: 'model_context_overflow',
      message: expect.stringContaining('the prompt is 13055 tokens, the window is 4096 tokens'),
    });
  });

  it('reads LM Studio’s bare string and Ollama’s body inside a string', () => {
    const studio = OpenAI.APIError.generate(
      400,
      {
        error:
          'Trying to keep the first 6269 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough.',
      },
      undefined,
      new Headers(),
    );
    expect(classifyProviderError(studio, endpoint, live).error.message).toContain('the prompt is 6269 tokens, the window is 4096 tokens');
    const nested =
      '{"error":{"code":400,"message":"request (8889 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":8889,"n_ctx":4096}}';
    const ollama = OpenAI.APIError.generate(400, { error: nested }, undefined, new Headers());
    const info = classifyProviderError(ollama, endpoint, live).error;
    expect(info.code).toBe('model_context_overflow');
    expect(info.message).toMatch(
      /The server said: request \(8889 tokens\) exceeds the available context size \(4096 tokens\), try increasing it$/,
    );
  });

  it('recognises Anthropic’s 400 and its 413 for a request too large', () => {
    const tooLong = Anthropic.APIError.generate(
      400,
      { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 213462 tokens > 200000 maximum' } },
      undefined,
      new Headers(),
    );
    expect(classifyProviderError(tooLong, 'https://api.anthropic.com', live).error).toMatchObject({
      code: 'model_context_overflow',
      message: expect.stringContaining('the prompt is 213462 tokens, the window is 200000 tokens'),
    });
    const tooLarge = Anthropic.APIError.generate(
      413,
      { type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' } },
      undefined,
      new Headers(),
    );
    expect(classifyProviderError(tooLarge, 'https://api.anthropic.com', live).error).toMatchObject({
      code: 'model_context_overflow',
      message: expect.stringContaining('Request exceeds the maximum allowed number of bytes.'),
    });
  });

  it('still calls another 400 a rejection, and a 5xx a server error', () => {
    const notFound = OpenAI.APIError.generate(400, { error: { message: "model 'x' not found" } }, undefined, new Headers());
    expect(classifyProviderError(notFound, endpoint, live).error.code).toBe('model_request_rejected');
    const batch = OpenAI.APIError.generate(
      500,
      {
        error: {
          code: 500,
          message: 'input (5000 tokens) is too large to process. increase the physical batch size',
          type: 'server_error',
        },
      },
      undefined,
      new Headers(),
    );
    expect(classifyProviderError(batch, endpoint, live).error).toMatchObject({ code: 'model_server_error', retryable: true });
  });
});

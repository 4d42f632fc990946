import { afterEach, describe, expect, it } from 'vitest';
import { LlamaCppProps } from '../../../src/main/providers/llama-cpp-props';
import {
  ThinkTagSplitters,
  llamaCppOpening,
  ollamaOpening,
  templateOpensThink,
  type TemplateOpening,
} from '../../../src/main/providers/think-openings';
import type { ContentPiece } from '../../../src/main/providers/think-tags';
import { json, startRawServer, type RawServer } from './raw-server';

/* Which templates open a think block in the prompt, and what a provider learns of a model from its answers. */

/** Templates in the shape of the real ones, shortened. */
const templates = {
  /** QwQ, Qwen3's thinking-only models, DeepSeek R1: the generation prompt opens the block. */
  opensInJinja:
    "{%- for message in messages %}{%- set content = message.content.split('</think>')[-1] %}" +
    "{{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>\\n' }}{%- endfor %}" +
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n<think>\\n' }}{%- endif %}",
  /** Qwen3's hybrid models: past reasoning written as a closed block, and a closed empty one when thinking is off. */
  closesInJinja:
    "{%- for message in messages %}{%- if message.reasoning_content %}{{- '<think>\\n' + message.reasoning_content + '\\n</think>\\n\\n' }}" +
    "{%- endif %}{{- message.content }}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}" +
    "{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}{%- endif %}",
  noThinking:
    "{%- for message in messages %}{{- '<|start_header_id|>' + message.role + '<|end_header_id|>\\n\\n' + message.content }}{%- endfor %}",
  opensInGo: '{{- range $i, $_ := .Messages }}{{ .Content }}{{- if $last }}<|im_start|>assistant\n<think>\n{{ end }}{{- end }}',
  closesInGo: '{{- range .Messages }}{{ .Content }}{{ end }}<|im_start|>assistant\n{{ if not $.Think }}<think>\n\n</think>\n\n{{ end }}',
};

describe('a chat template', () => {
  it('opens the block when its last <think> is not closed after it', () => {
    expect(templateOpensThink(templates.opensInJinja)).toBe(true);
    expect(templateOpensThink(templates.opensInGo)).toBe(true);
  });

  it('does not when every <think> it writes is closed, or it writes none', () => {
    expect(templateOpensThink(templates.closesInJinja)).toBe(false);
    expect(templateOpensThink(templates.closesInGo)).toBe(false);
    expect(templateOpensThink(templates.noThinking)).toBe(false);
    expect(templateOpensThink('')).toBe(false);
  });
});

describe('what a server says of its template', () => {
  let server: RawServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });
  const context = (url: string): { root: string; fetch: typeof fetch; headers: Record<string, string>; timeoutMs: number } => ({
    root: url,
    fetch: (input, init) => fetch(input, init),
    headers: {},
    timeoutMs: 2_000,
  });
  const signal = new AbortController().signal;

  it('llama.cpp: the template decides when the server says it leaves reasoning in the text; one that parses it says no', async () => {
    const props = (template: string, format?: string): unknown => ({
      chat_template: template,
      default_generation_settings: { n_ctx: 4096, params: format === undefined ? {} : { reasoning_format: format } },
    });
    const routes: Record<string, ReturnType<typeof json>> = {};
    server = await startRawServer(routes);
    const url = server.url;
    // `/props` is read once per server: each case is a server of its own.
    const opening: TemplateOpening = (model, reading) => llamaCppOpening(new LlamaCppProps(context(url)))(model, reading);
    const cases: [unknown, boolean | null][] = [
      [props(templates.opensInJinja, 'none'), true],
      [props(templates.opensInJinja), null],
      [props(templates.opensInJinja, 'auto'), false],
      [props(templates.opensInJinja, 'deepseek'), false],
      [props(templates.closesInJinja, 'none'), false],
      [props(''), null],
    ];
    for (const [body, expected] of cases) {
      routes['GET /props'] = json(body);
      expect(await opening('any', signal), JSON.stringify(body).slice(0, 120)).toBe(expected);
    }
    delete routes['GET /props'];
    expect(await opening('any', signal)).toBeNull();
  });

  it('Ollama: the model’s template decides, unless Ollama parses the model’s thinking itself', async () => {
    let show: unknown = null;
    const models: string[] = [];
    server = await startRawServer({
      'POST /api/show': (request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString()));
        request.on('end', () => {
          models.push((JSON.parse(body) as { model: string }).model);
          json(show)(request, response);
        });
      },
    });
    const opening = ollamaOpening(context(server.url));
    show = { template: templates.opensInGo, capabilities: ['completion'] };
    expect(await opening('qwq-custom', signal)).toBe(true);
    show = { template: templates.opensInGo, capabilities: ['completion', 'thinking'] };
    expect(await opening('qwq', signal)).toBe(false);
    show = { template: templates.closesInGo };
    expect(await opening('qwen3', signal)).toBe(false);
    expect(models).toEqual(['qwq-custom', 'qwq', 'qwen3']);
  });
});

describe("a provider's think-tag splitters", () => {
  const signal = new AbortController().signal;
  const run = (splitter: { push(text: string): ContentPiece[]; end(): ContentPiece[] }, text: string): string =>
    [...splitter.push(text), ...splitter.end()].map((piece) => `${piece.kind}:${piece.text}`).join('|');

  it('asks the template once per model, and begins inside reasoning from the first answer when it opens', async () => {
    const asked: string[] = [];
    const opening: TemplateOpening = (model) => {
      asked.push(model);
      return Promise.resolve(model === 'qwq');
    };
    const splitters = new ThinkTagSplitters(opening);
    expect(run(await splitters.splitter('qwq', signal), 'Count.</think>Eight.')).toBe('reasoning:Count.|text:Eight.');
    expect(run(await splitters.splitter('qwq', signal), 'Again.</think>Eight.')).toBe('reasoning:Again.|text:Eight.');
    expect(run(await splitters.splitter('llama', signal), 'Eight.')).toBe('text:Eight.');
    expect(asked).toEqual(['qwq', 'llama']);
  });

  it('learns from an answer that closed a block it never opened, and unlearns from one that never closed', async () => {
    const splitters = new ThinkTagSplitters();
    expect(run(await splitters.splitter('m', signal), 'Count.</think>Eight.')).toBe('text:Count.</think>Eight.');
    expect(run(await splitters.splitter('m', signal), 'Count.</think>Eight.')).toBe('reasoning:Count.|text:Eight.');
    // Another model of the same provider is not affected.
    expect(run(await splitters.splitter('other', signal), 'Eight.')).toBe('text:Eight.');
    expect(run(await splitters.splitter('m', signal), 'No tags this time.')).toBe('reasoning:No tags this time.');
    expect(run(await splitters.splitter('m', signal), 'No tags this time.')).toBe('text:No tags this time.');
  });

  it('believes what answers show over what the template said', async () => {
    const splitters = new ThinkTagSplitters(() => Promise.resolve(false));
    expect(run(await splitters.splitter('m', signal), 'Count.</think>Eight.')).toBe('text:Count.</think>Eight.');
    expect(run(await splitters.splitter('m', signal), 'Count.</think>Eight.')).toBe('reasoning:Count.|text:Eight.');
  });

  it('answers as if nothing were known when the server cannot be asked', async () => {
    const splitters = new ThinkTagSplitters(() => Promise.reject(new Error('unreachable')));
    expect(run(await splitters.splitter('m', signal), 'Eight.')).toBe('text:Eight.');
  });
});

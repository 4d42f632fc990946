/*
 * Which models begin their answers inside reasoning that the chat template opened, as far as one provider knows: from
 * the template its server reports, and from what the model's answers showed.
 */

import { z } from 'zod';
import { BoundedMap } from '../../shared/bounded-map';
import type { LlamaCppProps } from './llama-cpp-props';
import { requestJson, type RouteContext } from './server-routes';
import { ThinkTagSplitter } from './think-tags';

/**
 * Whether the server's chat template for `model` ends the prompt inside a think block, and the server leaves the
 * reasoning in the answer's text: true or false, or null when the server does not say. Never throws.
 */
export type TemplateOpening = (model: string, signal: AbortSignal) => Promise<boolean | null>;

const open = '<think>';
const close = '</think>';

/**
 * Whether a chat template (Jinja or Go) writes a `<think>` it does not close after it: the generation prompt comes last
 * in a template, so its last `<think>` with no `</think>` after it is one the answer begins inside (QwQ's and DeepSeek
 * R1's `<|im_start|>assistant\n<think>\n`). Qwen3's template closes the block it writes when thinking is off, and
 * mentions `</think>` earlier only to take past reasoning out of the history. llama.cpp decides the same question
 * (`thinking_forced_open`) by rendering the template and looking at the prompt's end; a template is not rendered here,
 * so this reads its text.
 */
export function templateOpensThink(template: string): boolean {
  const opens = template.lastIndexOf(open);
  return opens >= 0 && opens > template.lastIndexOf(close);
}

const llamaCppPropsSchema = z.object({
  chat_template: z.string().optional(),
  default_generation_settings: z.object({ params: z.object({ reasoning_format: z.string().optional() }).optional() }).optional(),
});

/**
 * llama.cpp's `GET /props` (read once per server, shared with the prompt cache): the template of the model it serves,
 * and how it answers. Only a server that says it parses no reasoning (`reasoning_format: none`) leaves it in the text;
 * one that parses it (llama.cpp's default) sends it apart, and one that does not say may be of either kind, so its
 * template says nothing here.
 */
export function llamaCppOpening(server: LlamaCppProps): TemplateOpening {
  return async (_model, signal) => {
    const answer = await server.read(signal);
    if (!answer) return null;
    const props = llamaCppPropsSchema.safeParse(answer);
    if (!props.success || !props.data.chat_template) return null;
    const format = props.data.default_generation_settings?.params?.reasoning_format;
    if (format === undefined) return null;
    return format === 'none' && templateOpensThink(props.data.chat_template);
  };
}

const ollamaShowSchema = z.object({
  template: z.string().optional(),
  capabilities: z.array(z.string()).nullish(),
});

/**
 * Ollama's `POST /api/show`: the model's template (Go). A model Ollama lists as `thinking` has its reasoning parsed by
 * Ollama and sent apart (`message.thinking`), so only the others may leave it in the text.
 */
export function ollamaOpening(context: RouteContext): TemplateOpening {
  return async (model, signal) => {
    const answer = await requestJson(`${context.root}/api/show`, context, signal, { method: 'POST', body: { model } });
    if (answer.kind !== 'json') return null;
    const show = ollamaShowSchema.safeParse(answer.body);
    if (!show.success || !show.data.template) return null;
    if (show.data.capabilities?.includes('thinking')) return false;
    return templateOpensThink(show.data.template);
  };
}

/**
 * The think-tag splitters of one provider's answers. What it knows of a model starts from the server's template (asked
 * once per model, before its first answer) and follows what answers show: a response that closes a block it never
 * opened means the template opens one; one that began inside reasoning and never left it means the template does not
 * (or the server started to parse reasoning itself). Only that first answer is read wrong either way.
 */
export class ThinkTagSplitters {
  /** Per model: whether its answers begin inside reasoning. */
  private readonly opens = new BoundedMap<string, boolean>({ max: 64 });
  /** Per model: the server's template, asked once. */
  private readonly asked = new BoundedMap<string, Promise<void>>({ max: 64 });

  constructor(private readonly opening?: TemplateOpening) {}

  /** The splitter for `model`'s next answer, once the server was asked about its template. Never throws. */
  async splitter(model: string, signal: AbortSignal): Promise<ThinkTagSplitter> {
    if (this.opening && !this.opens.has(model)) await this.ask(model, this.opening, signal);
    return this.splitterFor(model);
  }

  /** The splitter for `model`'s next answer, from what is known already (the server is not asked). */
  splitterFor(model: string): ThinkTagSplitter {
    return new ThinkTagSplitter({
      opened: this.opens.get(model) === true,
      onEvidence: (opensInside) => this.opens.set(model, opensInside),
    });
  }

  private ask(model: string, opening: TemplateOpening, signal: AbortSignal): Promise<void> {
    let asking = this.asked.get(model);
    if (!asking) {
      asking = opening(model, signal).then(
        (opens) => {
          if (opens !== null && !this.opens.has(model)) this.opens.set(model, opens);
        },
        () => undefined,
      );
      this.asked.set(model, asking);
    }
    return asking;
  }
}

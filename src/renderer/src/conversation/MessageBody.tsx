/*
 * An answer rendered as Markdown, block by block, each finished block parsed once, with code highlighted and copy
 * buttons once the answer has finished.
 *
 * Also the Copy button of messages, code and prompts.
 */

import hljs from 'highlight.js/lib/common';
import { Fragment, memo, useDeferredValue, useMemo, useRef, useState, type ReactNode } from 'react';
import Markdown from 'react-markdown';
import type { Disposable } from '../../../shared/lifecycle';
import { copyText } from './copy';
import { useLifetime } from '../disposables';
import { splitBlocks, splitLongParagraph } from './markdown-blocks';

/** Copies a text to the clipboard, saying "Copied" for a moment after. */
export function CopyButton({ text, label }: { text: () => string; label: string }) {
  const [copied, setCopied] = useState(false);
  const lifetime = useLifetime();
  const reset = useRef<Disposable | null>(null);
  return (
    <button
      type="button"
      className="link small copy"
      aria-label={label}
      onClick={() =>
        void copyText(text()).then(() => {
          setCopied(true);
          // Copied again: the label stays its full time from now.
          if (reset.current) void lifetime.current.release(reset.current);
          reset.current = lifetime.current.timeout(() => setCopied(false), 1_200);
        })
      }
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

function CodeBlock({ children }: { children: ReactNode }) {
  const pre = useRef<HTMLPreElement>(null);
  return (
    <div className="code-block">
      <CopyButton label="Copy code" text={() => pre.current?.textContent ?? ''} />
      <pre ref={pre}>{children}</pre>
    </div>
  );
}

function renderMarkdown(text: string, highlight: boolean, inline = false) {
  return (
    <Markdown
      components={{
        ...(inline ? { p: Fragment } : {}),
        a: ({ href, children }) => (
          <a href={href} target="_blank" rel="noreferrer noopener">
            {children}
          </a>
        ),
        pre: ({ children }) => <CodeBlock>{children}</CodeBlock>,
        code: ({ className, children }) => {
          const language = /language-([\w+-]+)/.exec(className ?? '')?.[1];
          if (!highlight || !language || !hljs.getLanguage(language)) return <code className={className}>{children}</code>;
          const source = String(children).replace(/\n$/, '');
          // highlight.js escapes the source; its output is markup of spans only.
          return (
            <code
              className={`hljs language-${language}`}
              dangerouslySetInnerHTML={{ __html: hljs.highlight(source, { language, ignoreIllegals: true }).value }}
            />
          );
        },
      }}
    >
      {text}
    </Markdown>
  );
}

/** One block, parsed once: blocks with code are highlighted once the message has finished. */
const Block = memo(function Block({ text, highlight }: { text: string; highlight: boolean }) {
  return renderMarkdown(text, highlight);
});

/** A piece of a long paragraph, parsed once, its inline content only. */
const Piece = memo(function Piece({ text }: { text: string }) {
  return renderMarkdown(text, false, true);
});

/**
 * A very long paragraph. While it streams each piece is a box of its own, so a change at its end
 * lays out that piece alone, not the whole paragraph again (its lines break at piece ends, every
 * couple of thousand characters); once finished the pieces flow as one paragraph.
 */
function LongParagraph({ pieces, streaming, arriving }: { pieces: string[]; streaming: boolean; arriving: boolean }) {
  const last = pieces.length - 1;
  return (
    <p className={streaming ? 'long-paragraph streaming' : 'long-paragraph'}>
      {pieces.map((piece, index) => (
        <span key={index} className="piece">
          {arriving && index === last ? piece : <Piece text={piece} />}
        </span>
      ))}
    </p>
  );
}

/**
 * A message as Markdown, block by block: each finished block (and each piece of a long paragraph)
 * is parsed once and kept, so a long answer costs the same per frame at its end as at its start.
 * While it streams, the part still arriving is plain text; once it has finished, code blocks are
 * highlighted and get copy buttons.
 */
export const MessageBody = memo(function MessageBody(props: { text: string; streaming: boolean }) {
  // What arrives (and the highlighting at the end) is parsed in work React can pause between
  // blocks for a frame, so a burst of text never holds up the page; until then the text shown is
  // a moment old. A message shown whole at once is parsed at once.
  const text = useDeferredValue(props.text);
  const streaming = useDeferredValue(props.streaming);
  // Split again only when the text shown changes, not on the render that keeps the old one.
  const parts = useMemo(() => {
    const { done, tail } = splitBlocks(text);
    const open = tail.trim() !== '';
    return { open, blocks: (open ? [...done, tail] : done).map((block) => ({ block, pieces: splitLongParagraph(block) })) };
  }, [text]);
  return (
    <>
      {parts.blocks.map(({ block, pieces }, index) => {
        const arriving = streaming && parts.open && index === parts.blocks.length - 1;
        if (pieces.length > 1) return <LongParagraph key={index} pieces={pieces} streaming={streaming} arriving={arriving} />;
        if (arriving)
          return (
            <p key={index} className="streaming-tail">
              {block}
            </p>
          );
        return <Block key={index} text={block} highlight={!streaming && /```|~~~/.test(block)} />;
      })}
    </>
  );
});

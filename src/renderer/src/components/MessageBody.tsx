import hljs from 'highlight.js/lib/common';
import { memo, useRef, useState, type ReactNode } from 'react';
import Markdown from 'react-markdown';
import { copyText } from '../copy';
import { splitBlocks } from '../markdown-blocks';

export function CopyButton({ text, label }: { text: () => string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="link small copy"
      aria-label={label}
      onClick={() =>
        void copyText(text()).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1_200);
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

function renderMarkdown(text: string, highlight: boolean) {
  return (
    <Markdown
      components={{
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
          return <code className={`hljs language-${language}`} dangerouslySetInnerHTML={{ __html: hljs.highlight(source, { language, ignoreIllegals: true }).value }} />;
        },
      }}
    >
      {text}
    </Markdown>
  );
}

const StreamedBlock = memo(function StreamedBlock({ text }: { text: string }) {
  return renderMarkdown(text, false);
});

/**
 * A message as Markdown. While it streams, each finished block is parsed once and the block still
 * arriving is shown as plain text, so a long answer costs the same per frame at its end as at its
 * start; once it has finished it is rendered whole, code highlighted, with copy buttons.
 */
export const MessageBody = memo(function MessageBody({ text, streaming }: { text: string; streaming: boolean }) {
  if (!streaming) return renderMarkdown(text, true);
  const { done, tail } = splitBlocks(text);
  return (
    <>
      {done.map((block, index) => (
        <StreamedBlock key={index} text={block} />
      ))}
      {tail.length > 0 && <p className="streaming-tail">{tail}</p>}
    </>
  );
});

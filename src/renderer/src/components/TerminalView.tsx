import { FitAddon } from '@xterm/addon-fit';
import { WebglAddon } from '@xterm/addon-webgl';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef } from 'react';

/** Bytes handed to the terminal and not yet drawn, past which new output is gathered and written in one piece. */
const highWater = 256 * 1024;
const scrollback = 5_000;

/**
 * A command's output in a real terminal (colours, cursor movement, progress bars), drawn with WebGL
 * where the machine has it. Output is written as it grows; while the terminal is behind, what
 * arrives is gathered and written at once, so a flood of output cannot queue without bound.
 */
export function TerminalView({ output, label }: { output: string; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const state = useRef<{ terminal: Terminal; fit: FitAddon; written: string; pending: number; held: string } | null>(null);

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const terminal = new Terminal({ convertEol: true, disableStdin: true, scrollback, rows: 12, fontSize: 12, cursorInactiveStyle: 'none', theme: { background: '#0d1117' } });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    terminal.open(element);
    try {
      const webgl = new WebglAddon();
      webgl.onContextLoss(() => webgl.dispose());
      terminal.loadAddon(webgl);
    } catch {
      // No WebGL here: the DOM renderer draws it.
    }
    try {
      fit.fit();
    } catch {
      // Not laid out yet; the size is fixed when it is.
    }
    state.current = { terminal, fit, written: '', pending: 0, held: '' };
    const observer = new ResizeObserver(() => {
      try {
        fit.fit();
      } catch {
        // Hidden: nothing to fit.
      }
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      terminal.dispose();
      state.current = null;
    };
  }, []);

  useEffect(() => {
    const current = state.current;
    if (!current) return;
    const write = (data: string): void => {
      current.pending += data.length;
      current.terminal.write(data, () => {
        current.pending -= data.length;
        if (current.pending < highWater && current.held.length > 0) {
          const held = current.held;
          current.held = '';
          write(held);
        }
      });
    };
    let delta: string;
    if (output.startsWith(current.written)) {
      delta = output.slice(current.written.length);
    } else {
      // The finished call's output replaced the live one (cut for the model): show it afresh.
      current.terminal.reset();
      current.held = '';
      delta = output;
    }
    current.written = output;
    if (delta.length === 0) return;
    if (current.pending >= highWater) current.held += delta;
    else write(delta);
  }, [output]);

  return <div className="terminal" ref={host} role="log" aria-label={label} data-output-length={output.length} />;
}

import { FitAddon } from '@xterm/addon-fit';
import { WebglAddon } from '@xterm/addon-webgl';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import { cancelSequence, nextChunk, type ScanState } from '../terminal-chunks';

const scrollback = 5_000;
/** Characters handed to the terminal per animation frame: it parses and draws them well inside the frame. */
const perFrame = 24 * 1024;

/** Whether the GPU draws WebGL; a software rasterizer (SwiftShader, llvmpipe) is slower than the DOM renderer. */
let hardwareWebgl: boolean | null = null;
function hasHardwareWebgl(): boolean {
  if (hardwareWebgl !== null) return hardwareWebgl;
  try {
    const gl = document.createElement('canvas').getContext('webgl2');
    const info = gl?.getExtension('WEBGL_debug_renderer_info');
    const renderer = gl && info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : '';
    hardwareWebgl = gl !== null && !/swiftshader|llvmpipe|software/i.test(renderer);
    gl?.getExtension('WEBGL_lose_context')?.loseContext();
  } catch {
    hardwareWebgl = false;
  }
  return hardwareWebgl;
}

interface Made {
  readonly terminal: Terminal;
  readonly fit: FitAddon;
}

function makeTerminal(): Made {
  const terminal = new Terminal({
    convertEol: true,
    disableStdin: true,
    scrollback,
    rows: 12,
    fontSize: 12,
    cursorInactiveStyle: 'none',
    theme: { background: '#0d1117' },
  });
  const fit = new FitAddon();
  terminal.loadAddon(fit);
  return { terminal, fit };
}

function openTerminal({ terminal }: Made, parent: HTMLElement): void {
  terminal.open(parent);
  if (!hasHardwareWebgl()) return;
  try {
    const webgl = new WebglAddon();
    webgl.onContextLoss(() => webgl.dispose());
    terminal.loadAddon(webgl);
  } catch {
    // No WebGL after all: the DOM renderer draws it.
  }
}

/**
 * One terminal made and opened ahead of time, out of sight, while the page is idle: a command's
 * card then shows its terminal without the frame it would take to build one.
 */
let spare: Made | null = null;
let warming = false;

function parking(): HTMLElement {
  const found = document.getElementById('terminal-parking');
  if (found) return found;
  const element = document.createElement('div');
  element.id = 'terminal-parking';
  element.className = 'terminal-parking';
  element.setAttribute('aria-hidden', 'true');
  document.body.append(element);
  return element;
}

/** Runs `work` when the page has a long enough idle moment for it. */
function whenIdle(work: () => void): void {
  const attempt = (deadline: IdleDeadline): void => {
    if (deadline.timeRemaining() < 20 && !deadline.didTimeout) {
      requestIdleCallback(attempt, { timeout: 10_000 });
      return;
    }
    work();
  };
  requestIdleCallback(attempt, { timeout: 10_000 });
}

/** Prepares the next terminal in idle moments, one step per moment. */
export function warmTerminal(): void {
  if (spare || warming || typeof requestIdleCallback !== 'function') return;
  warming = true;
  whenIdle(() => {
    hasHardwareWebgl();
    whenIdle(() => {
      const made = makeTerminal();
      whenIdle(() => {
        const parent = document.createElement('div');
        parent.className = 'terminal';
        parking().append(parent);
        openTerminal(made, parent);
        spare = made;
        warming = false;
      });
    });
  });
}

/**
 * Puts a terminal into `parent`: the one prepared ahead of time, at once; otherwise one built a
 * step per task (make, check the GPU, open), so that no frame waits for all of it. Returns how to
 * cancel a build still under way.
 */
function placeTerminal(parent: HTMLElement, placed: (made: Made) => void): () => void {
  const taken = spare;
  spare = null;
  warmTerminal();
  if (taken?.terminal.element) {
    const holder = taken.terminal.element.parentElement;
    parent.append(taken.terminal.element);
    holder?.remove();
    placed(taken);
    return () => undefined;
  }
  let made: Made | null = null;
  let timer: ReturnType<typeof setTimeout> | null = setTimeout(() => {
    made = makeTerminal();
    timer = setTimeout(() => {
      hasHardwareWebgl();
      timer = setTimeout(() => {
        timer = null;
        if (!made) return;
        openTerminal(made, parent);
        placed(made);
      });
    });
  });
  return () => {
    if (timer !== null) clearTimeout(timer);
    // Made but never shown: nobody else will dispose of it.
    if (timer !== null) made?.terminal.dispose();
  };
}

/**
 * A command's output in a real terminal (colours, cursor movement, progress bars), drawn with WebGL
 * where the machine has it. Output is written as it grows, at most a frame's worth per frame.
 */
export function TerminalView({ output, total, epoch, label }: { output: string; total: number; epoch: number; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const state = useRef<{
    terminal: Terminal;
    fit: FitAddon;
    written: number;
    epoch: number;
    queue: string;
    scan: ScanState;
    frame: number | null;
  } | null>(null);
  const [ready, setReady] = useState(false);

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    let observer: ResizeObserver | null = null;
    const cancel = placeTerminal(element, ({ terminal, fit }) => {
      try {
        fit.fit();
      } catch {
        // Not laid out yet; the size is fixed when it is.
      }
      state.current = { terminal, fit, written: 0, epoch: -1, queue: '', scan: 'ground', frame: null };
      observer = new ResizeObserver(() => {
        try {
          fit.fit();
        } catch {
          // Hidden: nothing to fit.
        }
      });
      observer.observe(element);
      setReady(true);
    });
    return () => {
      cancel();
      observer?.disconnect();
      if (state.current?.frame != null) cancelAnimationFrame(state.current.frame);
      state.current?.terminal.dispose();
      state.current = null;
      // A terminal placed again (a remount) writes the output afresh.
      setReady(false);
    };
  }, []);

  useEffect(() => {
    const current = state.current;
    if (!current) return;
    // The queue is drained a frame's worth at a time, so a flood of output never blocks the page.
    const pump = (): void => {
      current.frame = null;
      if (current.queue.length === 0) return;
      const chunk = nextChunk(current.queue, perFrame, current.scan);
      current.queue = chunk.rest;
      current.scan = chunk.state;
      current.terminal.write(chunk.write);
      if (current.queue.length > 0) current.frame = requestAnimationFrame(pump);
    };
    // Output only grows within an epoch: what is new is its last `total - written` characters.
    let delta: string;
    if (current.epoch !== epoch || total < current.written || total - current.written > output.length) {
      // The finished call's output replaced the live one (cut for the model), or more arrived than is kept: show it afresh.
      if (current.written > 0 || current.epoch !== -1) current.terminal.reset();
      current.queue = '';
      current.scan = 'ground';
      delta = output;
    } else {
      delta = output.slice(output.length - (total - current.written));
    }
    current.epoch = epoch;
    current.written = total;
    if (delta.length === 0) return;
    current.queue += delta;
    // Behind by more than the view keeps: what the terminal would never catch up on is skipped, as said.
    if (current.queue.length > 4 * 1024 * 1024) {
      // Any sequence under way is cancelled, and what is kept starts at a line's start, not halfway through one.
      const kept = current.queue.slice(-1024 * 1024);
      current.queue = `${cancelSequence}\r\n[… earlier output skipped …]\r\n${kept.slice(kept.indexOf('\n') + 1)}`;
    }
    current.frame ??= requestAnimationFrame(pump);
  }, [output, total, epoch, ready]);

  return <div className="terminal" ref={host} role="log" aria-label={label} data-output-length={output.length} />;
}

#!/usr/bin/env node
/*
 * Draws the app's icon and writes it to build/icon.png (1024×1024, RGBA); electron-builder makes the
 * macOS .icns, the Windows .ico and the Linux sizes from it. A rounded square in the app's accent blue
 * with a shell prompt on it: a chevron and a cursor.
 *   node scripts/make-icon.mjs
 * Shapes are signed distance fields, so edges are anti-aliased without supersampling, and the output is the
 * same pixels on every machine (test/packaging/package-contents.test.ts checks the committed file against them).
 */
import { Buffer } from 'node:buffer';
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { URL, fileURLToPath } from 'node:url';

/** The body inside the canvas, as macOS lays icons out: 824 of 1024, corners of about 22%. */
const body = { center: 512, half: 412, radius: 184 };
const top = [0x3a, 0x79, 0xf2];
const bottom = [0x17, 0x3f, 0xa8];
const ink = [0xff, 0xff, 0xff];
const cursorInk = [0xa5, 0xe4, 0xff];
const stroke = 50;
const chevron = [
  [330, 372, 496, 512],
  [496, 512, 330, 652],
];
const cursor = [566, 652, 704, 652];

function roundedSquare(x, y) {
  const qx = Math.abs(x - body.center) - (body.half - body.radius);
  const qy = Math.abs(y - body.center) - (body.half - body.radius);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - body.radius;
}

function capsule(x, y, [ax, ay, bx, by], radius) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(x - ax - t * dx, y - ay - t * dy) - radius;
}

/** How much of a pixel a shape at signed distance `d` (in pixels) covers. */
const coverage = (d) => Math.max(0, Math.min(1, 0.5 - d));
const mix = (a, b, t) => a.map((value, index) => value + (b[index] - value) * t);

/** The icon's RGBA pixels, row by row, at `size`×`size` (drawn on the 1024 grid, scaled). */
export function drawIcon(size = 1024) {
  const scale = 1024 / size;
  const pixels = Buffer.alloc(size * size * 4);
  for (let row = 0; row < size; row += 1) {
    for (let column = 0; column < size; column += 1) {
      const x = (column + 0.5) * scale;
      const y = (row + 0.5) * scale;
      const alpha = coverage(roundedSquare(x, y) / scale);
      if (alpha === 0) continue;
      let color = mix(top, bottom, Math.max(0, Math.min(1, (y - 100) / 824)));
      const mark = Math.min(...chevron.map((segment) => capsule(x, y, segment, stroke)));
      color = mix(color, ink, coverage(mark / scale));
      color = mix(color, cursorInk, coverage(capsule(x, y, cursor, stroke) / scale));
      const at = (row * size + column) * 4;
      pixels[at] = Math.round(color[0]);
      pixels[at + 1] = Math.round(color[1]);
      pixels[at + 2] = Math.round(color[2]);
      pixels[at + 3] = Math.round(alpha * 255);
    }
  }
  return pixels;
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A PNG (8-bit RGBA, no filtering) of square RGBA pixels. */
export function encodePng(pixels, size) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let row = 0; row < size; row += 1) pixels.copy(rows, row * (size * 4 + 1) + 1, row * size * 4, (row + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export const iconPath = fileURLToPath(new URL('../build/icon.png', import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(iconPath, encodePng(drawIcon(1024), 1024));
  console.log(`Wrote ${iconPath}`);
}

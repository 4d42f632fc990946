/*
 * The limits of what the window may send, shared by the contract and the UI so both refuse the same inputs, and the
 * checked shapes of the plain values they bound: ids and web addresses.
 */

import { z } from 'zod';

/** Limits shared by the contract and the UI, so both refuse the same inputs. */
export const limits = {
  idLength: 64,
  titleLength: 200,
  messageLength: 200_000,
  pathLength: 4_096,
  urlLength: 2_048,
  nameLength: 100,
  apiKeyLength: 500,
  modelNameLength: 300,
  /** An exported session document, in characters. */
  importLength: 100_000_000,
  /** A write's or an edit's content as the person changes it at the gate (the write tools' own limit is checked after). */
  editedContent: 10_000_000,
} as const;

export const idSchema = z
  .string()
  .min(1)
  .max(limits.idLength)
  .regex(/^[A-Za-z0-9_-]+$/, 'ids are letters, digits, - and _');

export const httpUrlSchema = z
  .string()
  .max(limits.urlLength)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'it must start with http:// or https://, such as http://127.0.0.1:11434');

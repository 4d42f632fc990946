/*
 * The fields by which an event names its turn, or its turn and tool call.
 */

import { z } from 'zod';
import { idSchema } from '../input-limits';

export const turnRef = { turnId: idSchema };
export const toolCallRef = { turnId: idSchema, toolCallId: z.string().min(1).max(200) };

import { SANDBOX_KINDS, TRACER_CHOICES } from '../evidence/kinds.js';
import { orList } from './flags.js';

/** `--sandbox` and `--tracer` help texts, from the kind names. */
export const SANDBOX_OPTION = orList(SANDBOX_KINDS);
export const TRACER_OPTION = orList(TRACER_CHOICES);

export { type ParseStraceOptions, parseStraceLines } from './parse-strace-lines.js';
export { type StraceParseResult, StraceParser, type StraceParserOptions } from './strace-parser.js';
export { createStraceTracer, type StraceTracerOptions, straceTracer } from './strace-tracer.js';

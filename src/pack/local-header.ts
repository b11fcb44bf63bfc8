import { readSync } from 'node:fs';
import yauzl from 'yauzl';

/*
 * A zip names each entry twice: in the central directory (what yauzl, and so verification, reads)
 * and in the local header before the entry's data (what a streaming extractor reads). An archive
 * whose two names differ verifies one file and unpacks another, so it is refused. The Info-ZIP
 * Unicode Path extra field (0x7075) is a third name in either place: it must say the same.
 */

const LOCAL_SIGNATURE = 0x04034b50;
const UNICODE_PATH = 0x7075;
const UTF8_FLAG = 0x800;

/** Why the entry's local header names it otherwise than the central directory, or null. */
export function localNameProblem(fd: number, e: yauzl.Entry): string | null {
  const central = yauzl.getFileNameLowLevel(e.generalPurposeBitFlag, e.fileNameRaw, e.extraFields, true);
  const plain = yauzl.getFileNameLowLevel(e.generalPurposeBitFlag, e.fileNameRaw, [], true);
  if (central !== plain) return `has two names: '${plain}', and '${central}' in its Unicode path field`;
  const header = Buffer.alloc(30);
  if (
    readSync(fd, header, 0, 30, e.relativeOffsetOfLocalHeader) !== 30 ||
    header.readUInt32LE(0) !== LOCAL_SIGNATURE
  )
    return 'has no local header where the central directory says';
  const flag = header.readUInt16LE(6);
  const nameLength = header.readUInt16LE(26);
  const extraLength = header.readUInt16LE(28);
  const rest = Buffer.alloc(nameLength + extraLength);
  if (readSync(fd, rest, 0, rest.length, e.relativeOffsetOfLocalHeader + 30) !== rest.length)
    return 'has a local header cut short';
  const localRaw = rest.subarray(0, nameLength);
  const local = yauzl.getFileNameLowLevel(flag, localRaw, [], true);
  const differs =
    !localRaw.equals(e.fileNameRaw) ||
    (local !== plain && ((flag ^ e.generalPurposeBitFlag) & UTF8_FLAG) !== 0);
  if (differs) return `is named '${local}' in its local header but '${plain}' in the central directory`;
  for (const field of extraFields(rest.subarray(nameLength)))
    if (field.id === UNICODE_PATH && field.data.subarray(5).toString('utf8') !== plain)
      return `is named '${field.data.subarray(5).toString('utf8')}' in its local Unicode path field but '${plain}' in the central directory`;
  return null;
}

function extraFields(bytes: Buffer): { id: number; data: Buffer }[] {
  const out: { id: number; data: Buffer }[] = [];
  for (let at = 0; at + 4 <= bytes.length; ) {
    const id = bytes.readUInt16LE(at);
    const size = bytes.readUInt16LE(at + 2);
    out.push({ id, data: bytes.subarray(at + 4, Math.min(bytes.length, at + 4 + size)) });
    at += 4 + size;
  }
  return out;
}

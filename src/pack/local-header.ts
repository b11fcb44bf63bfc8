import { fstatSync, readSync } from 'node:fs';
import yauzl from 'yauzl';

/*
 * A zip names each entry twice: in the central directory (what yauzl, and so verification, reads)
 * and in the local header before the entry's data (what a streaming extractor reads). An archive
 * whose two names differ verifies one file and unpacks another, so it is refused. The Info-ZIP
 * Unicode Path extra field (0x7075) is a third name in either place: it must say the same.
 */

const LOCAL_SIGNATURE = 0x04034b50;
const DESCRIPTOR_SIGNATURE = 0x08074b50;
const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const ZIP64_EXTRA = 0x0001;
const DESCRIPTOR_FLAG = 0x8;
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

/** The bytes an entry takes from its local header to the end of its data (and data descriptor). */
export type EntrySpan = { name: string; start: number; end: number };

/** Where the entry's local header, data and data descriptor lie, or why they cannot be placed. */
export function entrySpan(fd: number, e: yauzl.Entry, name: string): EntrySpan | string {
  const start = e.relativeOffsetOfLocalHeader;
  const header = readAt(fd, start, 30);
  if (header === null || header.readUInt32LE(0) !== LOCAL_SIGNATURE)
    return 'has no local header where the central directory says';
  const nameLength = header.readUInt16LE(26);
  const extraLength = header.readUInt16LE(28);
  let end = start + 30 + nameLength + extraLength + e.compressedSize;
  if (e.generalPurposeBitFlag & DESCRIPTOR_FLAG) {
    const extra = readAt(fd, start + 30 + nameLength, extraLength);
    const zip64 = extra !== null && extraFields(extra).some((f) => f.id === ZIP64_EXTRA);
    const first = readAt(fd, end, 4);
    const signed = first !== null && first.readUInt32LE(0) === DESCRIPTOR_SIGNATURE;
    end += (signed ? 4 : 0) + 4 + (zip64 ? 16 : 8);
  }
  return { name, start, end };
}

/**
 * An archive whose central directory does not account for every byte before it hides something
 * from verification: a streaming unzipper reads local headers one after another from the start, so
 * a local entry the central directory never names (smuggled between two entries, before the first,
 * or just before the directory) is unpacked without being verified; two entries sharing bytes
 * (an overlapping zip bomb) are the same defect. The entries must tile the archive from byte 0 to
 * the central directory, which runs to the end records with nothing between them. Null when they do.
 */
export function unlistedBytes(
  fd: number,
  spans: readonly EntrySpan[],
): { entry?: string; reason: string } | null {
  const layout = endRecords(fd);
  if (typeof layout === 'string') return { reason: layout };
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let at = 0;
  for (const s of sorted) {
    if (s.start < at)
      return {
        entry: s.name,
        reason: `shares bytes ${s.start}-${at} with the entry before it (overlapping entries)`,
      };
    if (s.start > at) return gapProblem(fd, at, s.start);
    at = s.end;
  }
  if (at > layout.cdOffset)
    return { reason: `has entry data running into its central directory (byte ${layout.cdOffset})` };
  if (at < layout.cdOffset) return gapProblem(fd, at, layout.cdOffset);
  if (layout.cdOffset + layout.cdSize !== layout.after)
    return {
      reason: `has ${layout.after - layout.cdOffset - layout.cdSize} bytes between its central directory and its end records that belong to nothing`,
    };
  return null;
}

/** What lies in bytes [from, to) that no central entry names: a local entry by its name, or raw bytes. */
function gapProblem(fd: number, from: number, to: number): { entry?: string; reason: string } {
  const header = readAt(fd, from, 30);
  const why = 'so a streaming unzipper would unpack what verification never saw';
  if (header !== null && header.readUInt32LE(0) === LOCAL_SIGNATURE) {
    const raw = readAt(fd, from + 30, Math.min(header.readUInt16LE(26), to - from - 30));
    const name = raw === null ? '?' : yauzl.getFileNameLowLevel(header.readUInt16LE(6), raw, [], true);
    return {
      entry: name,
      reason: `has a local header at byte ${from} but no entry in the central directory, ${why}`,
    };
  }
  return { reason: `has ${to - from} bytes at byte ${from} that belong to no entry, ${why}` };
}

/** The central directory's offset and size, and where the records after it begin. */
function endRecords(fd: number): { cdOffset: number; cdSize: number; after: number } | string {
  const size = fstatSync(fd).size;
  // The end record is at most 22 bytes plus a 65,535-byte comment from the end; yauzl found it already.
  const tailLength = Math.min(size, 22 + 0xffff);
  const tail = readAt(fd, size - tailLength, tailLength);
  if (tail === null) return 'cannot be read to its end record';
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--)
    if (tail.readUInt32LE(i) === EOCD_SIGNATURE && i + 22 + tail.readUInt16LE(i + 20) === tail.length) {
      eocd = i;
      break;
    }
  if (eocd < 0) return 'has no end of central directory record';
  const eocdAt = size - tailLength + eocd;
  const locator = eocdAt >= 20 ? readAt(fd, eocdAt - 20, 20) : null;
  if (locator === null || locator.readUInt32LE(0) !== ZIP64_LOCATOR_SIGNATURE)
    return { cdOffset: tail.readUInt32LE(eocd + 16), cdSize: tail.readUInt32LE(eocd + 12), after: eocdAt };
  const z = Number(locator.readBigUInt64LE(8));
  const record = readAt(fd, z, 56);
  if (record === null || record.readUInt32LE(0) !== ZIP64_EOCD_SIGNATURE)
    return 'has a zip64 locator that points at no zip64 end record';
  if (z + 12 + Number(record.readBigUInt64LE(4)) !== eocdAt - 20)
    return 'has bytes between its zip64 end record and its locator that belong to nothing';
  return {
    cdOffset: Number(record.readBigUInt64LE(48)),
    cdSize: Number(record.readBigUInt64LE(40)),
    after: z,
  };
}

function readAt(fd: number, at: number, length: number): Buffer | null {
  if (at < 0 || length < 0) return null;
  const buf = Buffer.alloc(length);
  return readSync(fd, buf, 0, length, at) === length ? buf : null;
}

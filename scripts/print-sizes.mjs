// What a browser downloads, raw and gzipped (level 9, as the logger's size-budget test measures).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { gzipSync } from 'node:zlib';

export function printSizes(label, paths) {
  const sizes = paths.map((p) => {
    const code = readFileSync(p);
    return `${basename(p)} ${code.length} B, ${gzipSync(code, { level: 9 }).length} B gzipped`;
  });
  console.log(`${label}: ${sizes.join('; ')}`);
}

const UNQUOTED = /[^,\r\n]*/y;

/**
 * Reads RFC 4180 CSV (quoted fields with `""` escapes, CRLF or LF line ends) into rows of
 * fields. Strict: a stray quote inside an unquoted field or an unterminated quote throws, so a
 * test sees a malformed export instead of a quietly different table.
 *
 * @example
 * parseCsv('a,"b,c"\r\n1,"say ""hi"""\r\n'); // [['a', 'b,c'], ['1', 'say "hi"']]
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) throw new Error('unterminated quoted CSV field');
        field += text.slice(i, q);
        i = q + 1;
        if (text[i] !== '"') break;
        field += '"';
        i++;
      }
    } else {
      UNQUOTED.lastIndex = i;
      field = UNQUOTED.exec(text)?.[0] ?? '';
      if (field.includes('"')) throw new Error(`quote inside an unquoted CSV field: ${field}`);
      i += field.length;
    }
    row.push(field);
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text[i] === '\r') i++;
    if (text[i] === '\n' || i >= text.length) {
      i++;
      rows.push(row);
      row = [];
    } else {
      throw new Error(`unexpected character after a CSV field at ${i}`);
    }
  }
  return rows;
}

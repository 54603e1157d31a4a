/** `path` with these query parameters (repeated keys for arrays, empty values left out). */
export function href(path: string, params: Record<string, string | string[] | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value])
      if (v !== '' || key === 'f') search.append(key, v);
  }
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

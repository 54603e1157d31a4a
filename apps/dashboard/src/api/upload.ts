/**
 * A `fetch` for one call of the client that sends `body` with XMLHttpRequest, which (unlike fetch)
 * tells how much of an upload has gone: `onProgress` gets the bytes sent and the total. The
 * request's URL and headers (the CSRF token among them) are the client's; its body is `body`.
 */
export function uploadingFetch(
  body: Blob,
  onProgress: (sent: number, total: number) => void,
): (request: Request) => Promise<Response> {
  return (request) =>
    new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(request.method, request.url);
      for (const [name, value] of request.headers) xhr.setRequestHeader(name, value);
      xhr.responseType = 'arraybuffer';
      xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : body.size);
      xhr.onload = () => {
        const headers = new Headers();
        for (const line of xhr
          .getAllResponseHeaders()
          .trim()
          .split(/[\r\n]+/)) {
          const at = line.indexOf(':');
          if (at > 0) headers.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
        }
        resolve(new Response(xhr.response as ArrayBuffer, { status: xhr.status, headers }));
      };
      // unwrap answers a failed request with its own words (t('unreachable'))
      xhr.onerror = () => reject(new TypeError('the upload failed')); // not text
      xhr.onabort = () => reject(new DOMException('the upload was stopped', 'AbortError')); // not text
      request.signal.addEventListener('abort', () => xhr.abort());
      xhr.send(body);
    });
}

/** parse-prometheus-text-format ships no types: the Prometheus text format as prom2json's JSON. */
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}

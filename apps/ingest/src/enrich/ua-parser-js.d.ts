// ua-parser-js@1 ships no types. It is a UMD module: called as a function with a user agent it
// returns the parsed result; only the parts enrich/user-agent.ts reads are declared.
declare module 'ua-parser-js' {
  interface UAParserResult {
    browser: { name?: string; major?: string };
    os: { name?: string; version?: string };
    device: { type?: string };
  }
  const parse: (ua: string) => UAParserResult;
  export default parse;
}

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * Finds text for people written into the dashboard's code instead of its catalogues: JSX text
 * with a word in it, the text attributes (`title`, `aria-label`, `placeholder`, `alt`, `label`),
 * and any other string that reads as words ("Visit duration", "Saved."). Strings that are not
 * text (class names, keys, routes, protocol values) are told apart by where they stand; a line
 * ending in `// not text` marks the rare literal this cannot tell (a CSV column the API defines).
 */
export interface Literal {
  file: string;
  line: number;
  text: string;
}

const TEXT_ATTRIBUTES = new Set([
  'title',
  'aria-label',
  'aria-description',
  'aria-roledescription',
  'aria-valuetext',
  'placeholder',
  'alt',
  'label',
  'ask',
  'askLabel',
  'confirm',
  'copyLabel',
  'hint',
  'summary',
]);
/** attributes whose strings are never text */
const CODE_ATTRIBUTES = new Set([
  'class',
  'className',
  'id',
  'href',
  'type',
  'name',
  'rel',
  'target',
  'autocomplete',
  'inputMode',
  'role',
  'key',
  'for',
  'htmlFor',
  'method',
  'pattern',
  'd',
  'viewBox',
  'fill',
  'stroke',
  'transform',
  'points',
  'lang',
  'accept',
  'data-metric',
]);
/** functions whose string arguments are code: class lists, selectors, storage keys, formats */
const CODE_CALLS = new Set([
  't',
  'rich',
  'cx',
  'getItem',
  'setItem',
  'removeItem',
  'querySelector',
  'querySelectorAll',
  'getPropertyValue',
  'cssColour',
  'addEventListener',
  'removeEventListener',
  'matchMedia',
  'createElement',
  'GET',
  'POST',
  'PATCH',
  'PUT',
  'DELETE',
  'startsWith',
  'endsWith',
  'includes',
  'split',
  'replace',
  'padStart',
  'join',
  'RegExp',
  'set',
  'get',
  'has',
  'append',
  'delete',
]);

/** names that read the same in every language */
const NAMES = new Set([
  'Footfall',
  'Stripe',
  'Paddle',
  'Lemon Squeezy',
  'Google Search Console',
  'Search Console',
  'GitHub',
  'Plausible',
  'Umami',
  'Google Analytics 4',
]);

/** reads as words: two words of letters, or one capitalised word of 3+ letters followed by punctuation or nothing */
const WORDS = /\p{L}{2,}[ \u00a0]+\p{L}{2,}|^\s*\p{Lu}\p{Ll}{2,}[.!?…:]?\s*$/u;

function calleeName(call: ts.CallExpression | ts.NewExpression): string | undefined {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return undefined;
}

/** Whether a string at this place is code rather than text, by what holds it. */
function isCode(node: ts.Node): boolean {
  let child: ts.Node = node;
  for (let parent = node.parent; parent; child = parent, parent = parent.parent) {
    if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent) || ts.isImportTypeNode(parent))
      return true;
    if (ts.isLiteralTypeNode(parent)) return true;
    if (ts.isJsxAttribute(parent)) {
      const name = parent.name.getText();
      return (
        CODE_ATTRIBUTES.has(name) ||
        name.startsWith('data-') ||
        (name.startsWith('aria-') && !TEXT_ATTRIBUTES.has(name))
      );
    }
    if ((ts.isCallExpression(parent) || ts.isNewExpression(parent)) && child !== parent.expression) {
      const name = calleeName(parent);
      return name !== undefined && CODE_CALLS.has(name);
    }
    if (ts.isBinaryExpression(parent) && /^(===|!==|==|!=)$/.test(parent.operatorToken.getText()))
      return true;
    if (ts.isCaseClause(parent) && child === parent.expression) return true;
    if (ts.isPropertyAssignment(parent) && child === parent.name) return true;
    if (ts.isElementAccessExpression(parent) && child === parent.argumentExpression) return true;
    if (ts.isBlock(parent) || ts.isSourceFile(parent)) return false;
  }
  return false;
}

function scanFile(path: string, root: string): Literal[] {
  const source = readFileSync(path, 'utf8');
  const file = ts.createSourceFile(
    path,
    source,
    ts.ScriptTarget.Latest,
    true,
    path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const lines = source.split('\n');
  const found: Literal[] = [];
  const report = (node: ts.Node, text: string) => {
    const line = file.getLineAndCharacterOfPosition(node.getStart()).line;
    if (lines[line]?.trimEnd().endsWith('// not text')) return;
    found.push({ file: relative(root, path), line: line + 1, text: text.trim().slice(0, 80) });
  };
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node)) {
      if (/\p{L}{2,}/u.test(node.text) && !NAMES.has(node.text.trim())) report(node, node.text);
    } else if (ts.isJsxAttribute(node) && node.initializer && ts.isStringLiteral(node.initializer)) {
      const name = node.name.getText();
      if (TEXT_ATTRIBUTES.has(name) && /\p{L}{2,}/u.test(node.initializer.text))
        report(node, node.initializer.text);
      return;
    } else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (WORDS.test(node.text) && !NAMES.has(node.text) && !isCode(node)) report(node, node.text);
    } else if (ts.isTemplateExpression(node)) {
      const parts = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' ');
      if (WORDS.test(parts) && !isCode(node)) report(node, parts);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Every literal under `dir` (the dashboard's src) that reads as text, outside the catalogues and tests. */
export function findLiterals(dir: string): Literal[] {
  const found: Literal[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) {
        if (relative(dir, path) !== 'i18n') walk(path);
      } else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$|\.d\.ts$/.test(entry.name)) {
        found.push(...scanFile(path, dir));
      }
    }
  };
  walk(dir);
  return found;
}

if (process.argv[1]?.endsWith('literals.ts')) {
  const found = findLiterals(join(import.meta.dirname, '..'));
  const only = process.argv[2];
  for (const l of found) if (!only || l.file.startsWith(only)) console.log(`${l.file}:${l.line}  ${l.text}`);
  console.log(`${found.length} literals`);
}

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One function of src/: where it is, the name it is known by, and how many lines it spans. */
export type FunctionLength = { file: string; name: string; line: number; lines: number };

/**
 * Every function in the non-test modules under `root` (declarations, methods, accessors,
 * constructors, arrow functions and function expressions), measured from its first line to its
 * last. A function without a name of its own is named by where it stands: the variable, property
 * or call it is written in, under the named function around it (`main > action`).
 */
export function functionLengths(root: string): FunctionLength[] {
  const found: FunctionLength[] = [];
  for (const file of moduleFiles(root)) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node, outer: string[]) => {
      let names = outer;
      if (isFunction(node)) {
        names = [...outer, ownName(node)];
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        found.push({ file, name: names.join(' > '), line: start + 1, lines: end - start + 1 });
      }
      ts.forEachChild(node, (child) => visit(child, names));
    };
    visit(source, []);
  }
  return found;
}

function moduleFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !/\.test\.ts$|\.d\.ts$/.test(e.name))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.MethodDeclaration
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration
  | ts.ArrowFunction
  | ts.FunctionExpression;

function isFunction(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node)
  );
}

function ownName(node: FunctionNode): string {
  if (ts.isConstructorDeclaration(node)) return `${className(node)}constructor`;
  if (!ts.isArrowFunction(node) && node.name) {
    const name = node.name.getText();
    return ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node)
      ? name
      : `${className(node)}${name}`;
  }
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText();
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

function className(node: ts.Node): string {
  const parent = node.parent;
  return (ts.isClassDeclaration(parent) || ts.isClassExpression(parent)) && parent.name
    ? `${parent.name.getText()}.`
    : '';
}

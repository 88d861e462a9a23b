/**
 * The client's declarations name the wire types of @crypto-service/protocol, a package the client
 * does not depend on (it would bring the server's cryptography along). This writes those types,
 * fully expanded, to dist/wire-types.d.ts and points the client's declarations at it, so that the
 * published client needs no other package, not even for its types.
 */
import { globSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';

const PROTOCOL = '@crypto-service/protocol';
const OUTPUT = 'wire-types.d.ts';
const PRINT_FLAGS =
  ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.InTypeAlias | ts.NodeBuilderFlags.IgnoreErrors;

/** The names the declarations under `dist` import or re-export from the protocol package. */
function protocolNames(sources: readonly ts.SourceFile[]): Set<string> {
  const names = new Set<string>();
  for (const source of sources) {
    for (const statement of source.statements) {
      const isImport = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement);
      if (!isImport || statement.moduleSpecifier === undefined) continue;
      if ((statement.moduleSpecifier as ts.StringLiteral).text !== PROTOCOL) continue;
      const bindings = ts.isImportDeclaration(statement)
        ? statement.importClause?.namedBindings
        : statement.exportClause;
      if (bindings === undefined || !(ts.isNamedImports(bindings) || ts.isNamedExports(bindings)))
        throw new Error(`${source.fileName}: only named imports from ${PROTOCOL} can be inlined`);
      for (const element of bindings.elements) names.add((element.propertyName ?? element.name).text);
    }
  }
  return names;
}

/** Every type reference's name in `node`. */
function referencedNames(node: ts.Node, into: Set<string>): Set<string> {
  if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName)) into.add(node.typeName.text);
  node.forEachChild((child) => void referencedNames(child, into));
  return into;
}

/** The expanded wire types: every named type and, transitively, every type those refer to by name. */
function expandedTypes(program: ts.Program, wanted: Set<string>): string {
  const checker = program.getTypeChecker();
  const exported = new Map<string, ts.Symbol>();
  for (const source of program.getSourceFiles()) {
    const module = checker.getSymbolAtLocation(source);
    if (module === undefined || !/\/(core|protocol)\/dist\//.test(source.fileName)) continue;
    for (const symbol of checker.getExportsOfModule(module)) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      if (target.flags & (ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Interface)) exported.set(symbol.name, target);
    }
  }
  const printer = ts.createPrinter({ removeComments: true });
  const scratch = ts.createSourceFile(OUTPUT, '', ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const queue = [...wanted].sort();
  const done = new Set<string>();
  const lines: string[] = [];
  while (queue.length > 0) {
    const name = queue.shift() as string;
    if (done.has(name)) continue;
    done.add(name);
    const symbol = exported.get(name);
    if (symbol === undefined) throw new Error(`${PROTOCOL} has no exported type ${name}`);
    const node = typeNode(checker, symbol);
    const parameters = typeParameters(symbol);
    const declared = parameters.map((parameter) => printer.printNode(ts.EmitHint.Unspecified, parameter, scratch));
    const generics = declared.length === 0 ? '' : `<${declared.join(', ')}>`;
    lines.push(`export type ${name}${generics} = ${printer.printNode(ts.EmitHint.Unspecified, node, scratch)};`);
    const own = new Set(parameters.map((parameter) => parameter.name.text));
    const references = referencedNames(node, new Set());
    for (const parameter of parameters) referencedNames(parameter, references);
    for (const reference of references) {
      if (own.has(reference)) continue;
      if (exported.has(reference) && !done.has(reference)) queue.push(reference);
      else if (!exported.has(reference) && !GLOBAL_TYPES.has(reference))
        throw new Error(`${name} refers to ${reference}, which is neither a wire type nor a global type`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The type parameters a generic alias or interface declares (`BatchEntry<Data>`), as written. */
function typeParameters(symbol: ts.Symbol): readonly ts.TypeParameterDeclaration[] {
  const declaration = symbol.declarations?.[0];
  if (declaration === undefined) return [];
  if (ts.isTypeAliasDeclaration(declaration) || ts.isInterfaceDeclaration(declaration))
    return declaration.typeParameters ?? [];
  return [];
}

/** A type alias as what it stands for; an interface as an object type of its properties. */
function typeNode(checker: ts.TypeChecker, symbol: ts.Symbol): ts.TypeNode {
  const type = checker.getDeclaredTypeOfSymbol(symbol);
  const print = (of: ts.Type) => {
    const node = checker.typeToTypeNode(of, undefined, PRINT_FLAGS);
    if (node === undefined) throw new Error(`cannot print the type ${symbol.name}`);
    return node;
  };
  if (!(symbol.flags & ts.SymbolFlags.Interface)) return print(type);
  if (checker.getIndexInfosOfType(type).length > 0 || type.getCallSignatures().length > 0)
    throw new Error(`${symbol.name}: only interfaces of plain properties can be inlined`);
  const members = checker.getPropertiesOfType(type).map((property) => {
    const optional =
      property.flags & ts.SymbolFlags.Optional ? ts.factory.createToken(ts.SyntaxKind.QuestionToken) : undefined;
    return ts.factory.createPropertySignature(
      undefined,
      property.name,
      optional,
      print(checker.getTypeOfSymbol(property)),
    );
  });
  return ts.factory.createTypeLiteralNode(members);
}

/** The global types a wire type may name as they are. */
const GLOBAL_TYPES = new Set(['Array', 'Record', 'Uint8Array', 'Date']);

/** Inlines the protocol's types into the client's build in `dist`. */
export async function inlineWireTypes(dist: string): Promise<void> {
  const files = globSync('**/*.d.ts', { cwd: dist }).map((file) => join(dist, file));
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const sources = files.map((file) => program.getSourceFile(file) as ts.SourceFile);
  const names = protocolNames(sources);
  await writeFile(
    join(dist, OUTPUT),
    `// The service's request and response types, expanded at build time.\n${expandedTypes(program, names)}`,
  );
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    const specifier = `'./${OUTPUT.replace(/\.d\.ts$/, '.js')}'`;
    const rewritten = text.replaceAll(`'${PROTOCOL}'`, specifier);
    if (rewritten !== text) await writeFile(file, rewritten);
  }
}

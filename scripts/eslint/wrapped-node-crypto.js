// ESLint rule: in core, the node:crypto functions that take keys are called only through
// node-crypto.ts, whether imported by name, read off a namespace import or destructured from it.
const NODE_CRYPTO = new Set(['crypto', 'node:crypto']);

/** @type {import('eslint').Rule.RuleModule} */
export default {
  meta: {
    type: 'problem',
    schema: [
      {
        type: 'object',
        properties: { names: { type: 'array', items: { type: 'string' } } },
        additionalProperties: false,
      },
    ],
    messages: {
      wrapped: '{{name}} from node:crypto is called through node-crypto.ts, which passes keys as KeyObjects',
    },
  },
  create(context) {
    const wrapped = new Set(context.options[0]?.names ?? []);
    const namespaces = new Set();
    const report = (node, name) => context.report({ node, messageId: 'wrapped', data: { name } });
    return {
      ImportDeclaration(node) {
        if (!NODE_CRYPTO.has(node.source.value)) return;
        for (const specifier of node.specifiers) {
          if (specifier.type === 'ImportSpecifier') {
            const name = specifier.imported.name ?? specifier.imported.value;
            if (wrapped.has(name)) report(specifier, name);
          } else {
            namespaces.add(specifier.local.name);
          }
        }
      },
      MemberExpression(node) {
        if (node.object.type !== 'Identifier' || !namespaces.has(node.object.name)) return;
        const name = node.computed ? node.property.value : node.property.name;
        if (wrapped.has(name)) report(node, name);
      },
      VariableDeclarator(node) {
        let init = node.init;
        while (init && (init.type === 'TSAsExpression' || init.type === 'TSSatisfiesExpression'))
          init = init.expression;
        if (node.id.type !== 'ObjectPattern' || init?.type !== 'Identifier' || !namespaces.has(init.name)) return;
        for (const property of node.id.properties) {
          const name = property.type === 'Property' ? (property.key.name ?? property.key.value) : undefined;
          if (wrapped.has(name)) report(property, name);
        }
      },
    };
  },
};

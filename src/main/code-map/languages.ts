/*
 * The languages the code map reads: which files are which, the tree-sitter grammar of each (prebuilt WebAssembly from
 * @vscode/tree-sitter-wasm), and the query that finds its definitions and references.
 */

/** What a definition defines. */
export type DefinitionType = 'function' | 'method' | 'class' | 'interface' | 'type' | 'module' | 'constant';

export interface CodeLanguage {
  readonly id: string;
  /** The grammar's file in @vscode/tree-sitter-wasm's `wasm` folder. */
  readonly grammar: string;
  readonly extensions: readonly string[];
  /**
   * Definitions are captured whole as `@definition.<type>` with their name as `@name`; references as `@reference` with
   * their name as `@name`.
   */
  readonly query: string;
}

const jsLike = `
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
(method_definition name: (property_identifier) @name) @definition.method
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @definition.function
(call_expression function: (identifier) @name) @reference
(call_expression function: (member_expression property: (property_identifier) @name)) @reference
(new_expression constructor: (identifier) @name) @reference
`;

const typescriptOnly = `
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.type
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(function_signature name: (identifier) @name) @definition.function
(method_signature name: (property_identifier) @name) @definition.method
(abstract_method_signature name: (property_identifier) @name) @definition.method
(internal_module name: (_) @name) @definition.module
(public_field_definition name: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method
(type_annotation (type_identifier) @name) @reference
(extends_clause value: (identifier) @name) @reference
(implements_clause (type_identifier) @name) @reference
`;

const cFamily = `
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.class
(union_specifier name: (type_identifier) @name body: (_)) @definition.class
(enum_specifier name: (type_identifier) @name body: (_)) @definition.type
(type_definition declarator: (type_identifier) @name) @definition.type
(call_expression function: (identifier) @name) @reference
(call_expression function: (field_expression field: (field_identifier) @name)) @reference
`;

const cppOnly = `
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (identifier) @name))) @definition.method
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(namespace_definition name: (namespace_identifier) @name) @definition.module
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: (identifier) @name)))) @definition.method
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(call_expression function: (qualified_identifier name: (identifier) @name)) @reference
`;

export const codeLanguages: readonly CodeLanguage[] = [
  {
    id: 'typescript',
    grammar: 'tree-sitter-typescript.wasm',
    extensions: ['.ts', '.mts', '.cts'],
    query: jsLike + typescriptOnly,
  },
  { id: 'tsx', grammar: 'tree-sitter-tsx.wasm', extensions: ['.tsx'], query: jsLike + typescriptOnly },
  {
    id: 'javascript',
    grammar: 'tree-sitter-javascript.wasm',
    extensions: ['.js', '.mjs', '.cjs', '.jsx'],
    query: `${jsLike}(field_definition property: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method
`,
  },
  {
    id: 'python',
    grammar: 'tree-sitter-python.wasm',
    extensions: ['.py', '.pyi'],
    query: `
(class_definition name: (identifier) @name) @definition.class
(class_definition body: (block (function_definition name: (identifier) @name) @definition.method))
(class_definition body: (block (decorated_definition definition: (function_definition name: (identifier) @name) @definition.method)))
(module (function_definition name: (identifier) @name) @definition.function)
(module (decorated_definition definition: (function_definition name: (identifier) @name) @definition.function))
(call function: (identifier) @name) @reference
(call function: (attribute attribute: (identifier) @name)) @reference
`,
  },
  {
    id: 'go',
    grammar: 'tree-sitter-go.wasm',
    extensions: ['.go'],
    query: `
(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.class
(type_alias name: (type_identifier) @name) @definition.type
(call_expression function: (identifier) @name) @reference
(call_expression function: (selector_expression field: (field_identifier) @name)) @reference
(composite_literal type: (type_identifier) @name) @reference
`,
  },
  {
    id: 'rust',
    grammar: 'tree-sitter-rust.wasm',
    extensions: ['.rs'],
    query: `
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.class
(enum_item name: (type_identifier) @name) @definition.type
(union_item name: (type_identifier) @name) @definition.class
(trait_item name: (type_identifier) @name) @definition.interface
(type_item name: (type_identifier) @name) @definition.type
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.function
(call_expression function: (identifier) @name) @reference
(call_expression function: (field_expression field: (field_identifier) @name)) @reference
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference
(macro_invocation macro: (identifier) @name) @reference
(struct_expression name: (type_identifier) @name) @reference
`,
  },
  {
    id: 'java',
    grammar: 'tree-sitter-java.wasm',
    extensions: ['.java'],
    query: `
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(method_invocation name: (identifier) @name) @reference
(object_creation_expression type: (type_identifier) @name) @reference
(superclass (type_identifier) @name) @reference
`,
  },
  { id: 'c', grammar: 'tree-sitter-cpp.wasm', extensions: ['.c', '.h'], query: cFamily },
  {
    id: 'cpp',
    grammar: 'tree-sitter-cpp.wasm',
    extensions: ['.cc', '.cpp', '.cxx', '.c++', '.hh', '.hpp', '.hxx', '.h++'],
    query: cFamily + cppOnly,
  },
  {
    id: 'csharp',
    grammar: 'tree-sitter-c-sharp.wasm',
    extensions: ['.cs'],
    query: `
(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(namespace_declaration name: (_) @name) @definition.module
(invocation_expression function: (identifier) @name) @reference
(invocation_expression function: (member_access_expression name: (identifier) @name)) @reference
(object_creation_expression type: (identifier) @name) @reference
`,
  },
  {
    id: 'ruby',
    grammar: 'tree-sitter-ruby.wasm',
    extensions: ['.rb', '.rake'],
    query: `
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(class name: (constant) @name) @definition.class
(module name: (constant) @name) @definition.module
(call method: (identifier) @name) @reference
(call receiver: (constant) @name) @reference
`,
  },
  {
    id: 'php',
    grammar: 'tree-sitter-php.wasm',
    extensions: ['.php'],
    query: `
(function_definition name: (name) @name) @definition.function
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.interface
(enum_declaration name: (name) @name) @definition.type
(method_declaration name: (name) @name) @definition.method
(function_call_expression function: (name) @name) @reference
(member_call_expression name: (name) @name) @reference
(scoped_call_expression name: (name) @name) @reference
(object_creation_expression (name) @name) @reference
`,
  },
];

/** The language of a file by its name's extension, or null when the map does not read it. */
export function languageOf(path: string): CodeLanguage | null {
  const dot = path.lastIndexOf('.');
  if (dot < 0 || dot < path.lastIndexOf('/')) return null;
  const extension = path.slice(dot).toLowerCase();
  return codeLanguages.find((language) => language.extensions.includes(extension)) ?? null;
}

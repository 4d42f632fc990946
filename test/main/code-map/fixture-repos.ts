/*
 * Small repositories in each language the code map reads: a file that defines a shape type with an area method and
 * a helper, and a file that uses them. What each must yield is listed beside it.
 */

export interface FixtureRepo {
  readonly language: string;
  readonly files: Readonly<Record<string, string>>;
  /** Definitions that must be found, as `kind name path:line`. */
  readonly definitions: readonly string[];
  /** Uses that must be found, as `name path:line`. */
  readonly references: readonly string[];
}

export const fixtureRepos: readonly FixtureRepo[] = [
  {
    language: 'typescript',
    files: {
      'src/shapes.ts': [
        'export interface Shape {',
        '  area(): number;',
        '}',
        'export type Size = number;',
        'export class Square implements Shape {',
        '  constructor(private readonly side: Size) {}',
        '  area(): number {',
        '    return scale(this.side * this.side);',
        '  }',
        '}',
        'export function scale(value: number): number {',
        '  return value;',
        '}',
        '',
      ].join('\n'),
      'src/main.ts': ["import { Square } from './shapes';", 'const total = new Square(2).area();', 'console.log(total);', ''].join('\n'),
    },
    definitions: [
      'interface Shape src/shapes.ts:1',
      'type Size src/shapes.ts:4',
      'class Square src/shapes.ts:5',
      'method area src/shapes.ts:7',
      'function scale src/shapes.ts:11',
    ],
    references: ['scale src/shapes.ts:8', 'Square src/main.ts:2', 'area src/main.ts:2', 'Shape src/shapes.ts:5'],
  },
  {
    language: 'tsx',
    files: {
      'ui/Panel.tsx': [
        'export function Panel() {',
        '  return <div>{formatTitle()}</div>;',
        '}',
        'function formatTitle() {',
        "  return 'Title';",
        '}',
        '',
      ].join('\n'),
    },
    definitions: ['function Panel ui/Panel.tsx:1', 'function formatTitle ui/Panel.tsx:4'],
    references: ['formatTitle ui/Panel.tsx:2'],
  },
  {
    language: 'javascript',
    files: {
      'lib/shapes.js': [
        'class Square {',
        '  area() {',
        '    return scale(4);',
        '  }',
        '}',
        'function scale(value) {',
        '  return value;',
        '}',
        'module.exports = { Square };',
        '',
      ].join('\n'),
      'lib/main.mjs': ["import { Square } from './shapes.js';", 'new Square().area();', ''].join('\n'),
    },
    definitions: ['class Square lib/shapes.js:1', 'method area lib/shapes.js:2', 'function scale lib/shapes.js:6'],
    references: ['scale lib/shapes.js:3', 'Square lib/main.mjs:2', 'area lib/main.mjs:2'],
  },
  {
    language: 'python',
    files: {
      'pkg/shapes.py': [
        'class Square:',
        '    def area(self):',
        '        return scale(self.side)',
        '',
        '',
        'def scale(value):',
        '    return value',
        '',
      ].join('\n'),
      'pkg/main.py': ['from pkg.shapes import Square', '', 'print(Square().area())', ''].join('\n'),
    },
    definitions: ['class Square pkg/shapes.py:1', 'method area pkg/shapes.py:2', 'function scale pkg/shapes.py:6'],
    references: ['scale pkg/shapes.py:3', 'Square pkg/main.py:3', 'area pkg/main.py:3'],
  },
  {
    language: 'go',
    files: {
      'shapes/shapes.go': [
        'package shapes',
        '',
        'type Shape interface {',
        '\tArea() int',
        '}',
        '',
        'type Square struct{ Side int }',
        '',
        'func (s Square) Area() int {',
        '\treturn Scale(s.Side * s.Side)',
        '}',
        '',
        'func Scale(v int) int { return v }',
        '',
      ].join('\n'),
      'main.go': [
        'package main',
        '',
        'import "example/shapes"',
        '',
        'func main() {',
        '\tprintln(shapes.Square{Side: 2}.Area())',
        '}',
        '',
      ].join('\n'),
    },
    definitions: [
      'interface Shape shapes/shapes.go:3',
      'class Square shapes/shapes.go:7',
      'method Area shapes/shapes.go:9',
      'function Scale shapes/shapes.go:13',
    ],
    references: ['Scale shapes/shapes.go:10', 'Area main.go:6'],
  },
  {
    language: 'rust',
    files: {
      'src/shapes.rs': [
        'pub trait Shape {',
        '    fn area(&self) -> u32;',
        '}',
        'pub struct Square {',
        '    pub side: u32,',
        '}',
        'impl Shape for Square {',
        '    fn area(&self) -> u32 {',
        '        scale(self.side * self.side)',
        '    }',
        '}',
        'pub fn scale(value: u32) -> u32 {',
        '    value',
        '}',
        '',
      ].join('\n'),
      'src/main.rs': [
        'mod shapes;',
        'use shapes::Shape;',
        'fn main() {',
        '    let square = shapes::Square { side: 2 };',
        '    let total = square.area();',
        '    println!("{}", total);',
        '}',
        '',
      ].join('\n'),
    },
    definitions: [
      'interface Shape src/shapes.rs:1',
      'class Square src/shapes.rs:4',
      'function area src/shapes.rs:8',
      'function scale src/shapes.rs:12',
      'module shapes src/main.rs:1',
      'function main src/main.rs:3',
    ],
    references: ['scale src/shapes.rs:9', 'area src/main.rs:5', 'println src/main.rs:6'],
  },
  {
    language: 'java',
    files: {
      'src/Square.java': [
        'public class Square implements Shape {',
        '    private final int side;',
        '    public Square(int side) { this.side = side; }',
        '    public int area() { return Scale.of(side * side); }',
        '}',
        '',
      ].join('\n'),
      'src/Main.java': [
        'public class Main {',
        '    public static void main(String[] args) {',
        '        System.out.println(new Square(2).area());',
        '    }',
        '}',
        '',
      ].join('\n'),
    },
    definitions: [
      'class Square src/Square.java:1',
      'method Square src/Square.java:3',
      'method area src/Square.java:4',
      'class Main src/Main.java:1',
      'method main src/Main.java:2',
    ],
    references: ['of src/Square.java:4', 'Square src/Main.java:3', 'area src/Main.java:3'],
  },
  {
    language: 'c',
    files: {
      'src/shapes.h': ['struct square { int side; };', 'int area(const struct square *s);', ''].join('\n'),
      'src/shapes.c': [
        '#include "shapes.h"',
        'static int scale(int v) { return v; }',
        'int area(const struct square *s) {',
        '  return scale(s->side * s->side);',
        '}',
        '',
      ].join('\n'),
    },
    definitions: [
      'class square src/shapes.h:1',
      'function area src/shapes.h:2',
      'function scale src/shapes.c:2',
      'function area src/shapes.c:3',
    ],
    references: ['scale src/shapes.c:4'],
  },
  {
    language: 'cpp',
    files: {
      'src/shapes.hpp': ['namespace geo {', 'class Square {', ' public:', '  int area() const;', '  int side = 2;', '};', '}', ''].join(
        '\n',
      ),
      'src/shapes.cpp': [
        '#include "shapes.hpp"',
        'static int scale(int v) { return v; }',
        'int geo::Square::area() const {',
        '  return scale(side * side);',
        '}',
        '',
      ].join('\n'),
    },
    definitions: [
      'module geo src/shapes.hpp:1',
      'class Square src/shapes.hpp:2',
      'method area src/shapes.hpp:4',
      'function scale src/shapes.cpp:2',
      'method area src/shapes.cpp:3',
    ],
    references: ['scale src/shapes.cpp:4'],
  },
  {
    language: 'csharp',
    files: {
      'Shapes/Square.cs': [
        'namespace Shapes',
        '{',
        '    public interface IShape { int Area(); }',
        '    public class Square : IShape',
        '    {',
        '        public int Area() { return Scaler.Scale(4); }',
        '    }',
        '}',
        '',
      ].join('\n'),
      'Program.cs': [
        'class Program',
        '{',
        '    static void Main() { System.Console.WriteLine(new Shapes.Square().Area()); }',
        '}',
        '',
      ].join('\n'),
    },
    definitions: [
      'module Shapes Shapes/Square.cs:1',
      'interface IShape Shapes/Square.cs:3',
      'class Square Shapes/Square.cs:4',
      'method Area Shapes/Square.cs:6',
      'class Program Program.cs:1',
      'method Main Program.cs:3',
    ],
    references: ['Scale Shapes/Square.cs:6', 'Area Program.cs:3', 'WriteLine Program.cs:3'],
  },
  {
    language: 'ruby',
    files: {
      'lib/shapes.rb': [
        'module Shapes',
        '  class Square',
        '    def area',
        '      scale(4)',
        '    end',
        '',
        '    def self.unit',
        '      new',
        '    end',
        '  end',
        'end',
        '',
      ].join('\n'),
      'main.rb': ["require_relative 'lib/shapes'", 'puts Shapes::Square.unit.area', ''].join('\n'),
    },
    definitions: [
      'module Shapes lib/shapes.rb:1',
      'class Square lib/shapes.rb:2',
      'method area lib/shapes.rb:3',
      'method unit lib/shapes.rb:7',
    ],
    references: ['scale lib/shapes.rb:4', 'area main.rb:2', 'unit main.rb:2'],
  },
  {
    language: 'php',
    files: {
      'src/Square.php': [
        '<?php',
        'interface Shape { public function area(): int; }',
        'class Square implements Shape {',
        '    public function area(): int { return scale(4); }',
        '}',
        'function scale(int $v): int { return $v; }',
        '',
      ].join('\n'),
      'index.php': ['<?php', 'echo (new Square())->area();', ''].join('\n'),
    },
    definitions: [
      'interface Shape src/Square.php:2',
      'class Square src/Square.php:3',
      'method area src/Square.php:4',
      'function scale src/Square.php:6',
    ],
    references: ['scale src/Square.php:4', 'Square index.php:2', 'area index.php:2'],
  },
];

import { describe, expect, it } from 'vitest';
import { checkInResult, checkLine, checkVerdictOf, graphProblem } from '../../src/shared/plan-graph';

describe('what the check of a plan’s answer found', () => {
  it.each([
    ['PASS', true, ''],
    ['PASS: both sources are compared.', true, 'both sources are compared.'],
    ['Passed - all of it', true, 'all of it'],
    ['FAIL\nThe hidden notes are not counted.', false, 'The hidden notes are not counted.'],
    ['fails: no tests were run', false, 'no tests were run'],
    ['**FAIL**: the hidden notes were not counted.', false, 'the hidden notes were not counted.'],
    ['`PASS`', true, ''],
    ['Verdict: PASS', true, ''],
    ['Result: FAIL, the summary is missing', false, 'the summary is missing'],
    ['## Verdict\nFAIL\nThe summary is missing.', false, 'The summary is missing.'],
    ['Pass/Fail: FAIL', false, ''],
  ])('%j: passed %s', (answer, passed, why) => {
    expect(checkVerdictOf(answer)).toEqual({ passed, why });
  });

  it.each(['The answer looks right to me.', 'Passing notes around is how the chain works.', 'Pass/Fail', '', 'One\nTwo\nThree\nPASS'])(
    '%j gives no verdict',
    (answer) => {
      expect(checkVerdictOf(answer).passed).toBeNull();
    },
  );

  it('is said on a line of the plan’s result that its card reads back', () => {
    const output = `Header\n\n${checkLine({ passed: false, why: 'the hidden notes were not counted.\nAnd more.' })}\nAdvice`;
    expect(checkInResult(output)).toEqual({ head: 'failed', why: 'the hidden notes were not counted.' });
    expect(checkInResult(checkLine({ passed: null, why: '' }))).toEqual({ head: 'no verdict', why: '' });
    expect(checkInResult('No check here')).toBeNull();
  });
});

describe('a plan’s graph', () => {
  it('names what keeps it from running', () => {
    expect(
      graphProblem([
        { id: 'a', dependsOn: ['b'] },
        { id: 'b', dependsOn: ['c'] },
        { id: 'c', dependsOn: ['a'] },
      ]),
    ).toBe('the steps "a" → "b" → "c" → "a" depend on each other in a circle, so none of them could start');
    expect(
      graphProblem([
        { id: 'a', dependsOn: [] },
        { id: 'a', dependsOn: [] },
      ]),
    ).toContain('two steps have the id "a"');
    expect(graphProblem([{ id: 'a:b', dependsOn: [] }])).toContain('letters, digits');
    expect(graphProblem([{ id: 'a', dependsOn: ['a'] }])).toBe('step "a" depends on itself');
    expect(
      graphProblem([
        { id: 'a', dependsOn: [] },
        { id: 'b', dependsOn: ['a'] },
      ]),
    ).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { withWrappedFunctions } from '../src/function-proxy';

describe('withWrappedFunctions', () => {
  it('wraps each function once, passes other values through, and wraps again when the property changes', () => {
    const target = { size: 3, unsafe: (text: string) => `driver ${text}` };
    let made = 0;
    const proxied = withWrappedFunctions(target, (_property, value) => {
      made += 1;
      return (text: string) => `wrapped ${value.call(target, text)}`;
    });
    expect(proxied.unsafe('select 1')).toBe('wrapped driver select 1');
    expect(proxied.unsafe).toBe(proxied.unsafe);
    expect(proxied.size).toBe(3);
    expect(made).toBe(1);
    target.unsafe = (text: string) => `other ${text}`;
    expect(proxied.unsafe('select 2')).toBe('wrapped other select 2');
    expect(made).toBe(2);
  });
});

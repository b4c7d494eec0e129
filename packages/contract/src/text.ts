import { z } from 'zod';

/**
 * Text in a request or response. PostgreSQL cannot store the NUL character in text, so it is refused
 * here (a 400 naming the field) rather than by the database (decision C24).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL character is exactly what this refuses
export const text = () => z.string().regex(/^[^\u0000]*$/, 'must not contain the NUL character');

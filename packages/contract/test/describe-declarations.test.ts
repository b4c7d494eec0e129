import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeDeclarations } from '../scripts/describe-declarations.js';

const WalletSchema = z.object({
  name: z.string().describe('Shown in lists; unique per member'),
  balance: z.number().int().describe('Whole won,\nnegative for a loan'),
  owner: z
    .object({ id: z.number().describe('The member') })
    .nullable()
    .optional(),
  plain: z.string(),
});
const walletRouter = { create: { body: WalletSchema, responses: { 201: WalletSchema } } };

const declarations = `declare const WalletSchema: z.ZodObject<{
    name: z.ZodString;
    balance: z.ZodNumber;
    owner: z.ZodOptional<z.ZodNullable<z.ZodObject<{
        id: z.ZodNumber;
    }, "strip", z.ZodTypeAny, {
        id: number;
    }, {
        id: number;
    }>>>;
    plain: z.ZodString;
}, "strip", z.ZodTypeAny, {
    name: string;
    balance: number;
    owner?: {
        id: number;
    } | null | undefined;
    plain: string;
}, {
    name: string;
    balance: number;
    /** Already documented */
    plain: string;
}>;
declare const walletRouter$1: {
    create: {
        body: typeof WalletSchema;
        responses: {
            201: z.ZodObject<{
                name: z.ZodString;
            }>;
        };
    };
};
declare const NotExported: z.ZodObject<{
    name: z.ZodString;
}>;
`;

describe('describeDeclarations (C37)', () => {
  const described = describeDeclarations(declarations, { WalletSchema, walletRouter });

  it('puts each description above the property in the shape, the output and the input type', () => {
    expect(described.match(/\/\*\* Shown in lists; unique per member \*\/\n {4}name: /g)).toHaveLength(3);
    expect(described).toContain(
      '/**\n     * Whole won,\n     * negative for a loan\n     */\n    balance: z.ZodNumber;',
    );
  });

  it('follows nested objects through optional and nullable, and plain objects such as routers (renamed X$1)', () => {
    expect(described).toContain('/** The member */\n        id: z.ZodNumber;');
    expect(described).toContain('/** The member */\n        id: number;');
    expect(described).toContain('/** Shown in lists; unique per member */\n                name: z.ZodString;');
  });

  it('leaves fields without a description, existing comments and unknown declarations as they were', () => {
    expect(described).not.toMatch(/\*\/\n\s+plain: z\.ZodString/);
    expect(described.match(/Already documented/g)).toHaveLength(1);
    expect(described).toContain('declare const NotExported: z.ZodObject<{\n    name: z.ZodString;');
  });
});

import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';

const {
  listDefaultCategories,
  createDefaultCategory,
  reorderDefaultCategories,
  updateDefaultCategory,
  deleteDefaultCategory,
} = contract.admin;

/** The default categories members import (`/api/admin/default-categories...`). Admin-only. */
export default async function defaultCategoriesModule(app: FastifyInstance) {
  const { defaultCategories } = app.services;
  registerContractRouter(
    app,
    {
      listDefaultCategories,
      createDefaultCategory,
      reorderDefaultCategories,
      updateDefaultCategory,
      deleteDefaultCategory,
    },
    {
      listDefaultCategories: async () => ({ status: 200, body: { items: await defaultCategories.list() } }),
      createDefaultCategory: async ({ body }) => ({ status: 201, body: await defaultCategories.create(body) }),
      reorderDefaultCategories: async ({ body }) => {
        await defaultCategories.reorder(body.ids);
        return { status: 204, body: undefined };
      },
      updateDefaultCategory: async ({ params, body }) => ({
        status: 200,
        body: await defaultCategories.update(params.id, body),
      }),
      deleteDefaultCategory: async ({ params }) => {
        await defaultCategories.delete(params.id);
        return { status: 204, body: undefined };
      },
    },
  );
}

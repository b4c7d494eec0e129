import type { z } from 'zod';

/**
 * All-or-nothing configuration: a feature (an identity provider, the store, a provider API) is either
 * fully configured or not at all. A half-configured group is a start-up error naming what is missing,
 * rather than a 503 discovered later.
 */
export interface FeatureGroup {
  name: string;
  variables: readonly string[];
}

const isSet = (value: unknown) =>
  value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);

/** Use as `.superRefine(requireWholeGroups([...]))` on the parsed environment object. */
export function requireWholeGroups(groups: readonly FeatureGroup[]) {
  return (env: Record<string, unknown>, context: z.RefinementCtx): void => {
    for (const group of groups) {
      const present = group.variables.filter((name) => isSet(env[name]));
      if (present.length === 0 || present.length === group.variables.length) continue;
      for (const missing of group.variables.filter((name) => !isSet(env[name]))) {
        context.addIssue({
          code: 'custom',
          path: [missing],
          message: `required because ${present.join(', ')} ${present.length === 1 ? 'is' : 'are'} set (${group.name} needs all of ${group.variables.join(', ')}, or none)`,
        });
      }
    }
  };
}

/** Whether a group is configured (after validation it is all or nothing). */
export function isGroupConfigured(env: Record<string, unknown>, group: FeatureGroup): boolean {
  return group.variables.every((name) => isSet(env[name]));
}

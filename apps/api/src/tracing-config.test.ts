/** Decision O10: which environments start tracing, and that a bad sampler setting stops the start by name. */
import { activeTracing, startTracing, tracingConfigured } from '@nestegg/telemetry';
import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';

const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };

describe('tracing configuration', () => {
  it('is off without an OTLP endpoint, and when disabled or its exporter is none', () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
    expect(tracingConfigured(endpoint)).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toBe(true);
    expect(tracingConfigured({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingConfigured({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });

  it('starts nothing when off: no tracing, no global provider, spans are no-ops', async () => {
    expect(await startTracing('nestegg-api', {})).toBeNull();
    expect(activeTracing()).toBeNull();
    const span = trace.getTracer('probe').startSpan('probe');
    expect(span.isRecording()).toBe(false);
    span.end();
  });

  it('refuses an unknown sampler or a ratio above 1, naming the variable, and stays off', async () => {
    await expect(startTracing('nestegg-api', { ...endpoint, OTEL_TRACES_SAMPLER: 'sometimes' })).rejects.toThrow(
      /OTEL_TRACES_SAMPLER/,
    );
    await expect(
      startTracing('nestegg-api', { ...endpoint, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }),
    ).rejects.toThrow(/OTEL_TRACES_SAMPLER_ARG/);
    await expect(startTracing('nestegg-api', { ...endpoint, OTEL_BSP_SCHEDULE_DELAY: 'soon' })).rejects.toThrow(
      /OTEL_BSP_SCHEDULE_DELAY/,
    );
    expect(activeTracing()).toBeNull();
  });

  it('samples by OTEL_TRACES_SAMPLER: always_off records nothing', async () => {
    const tracing = await startTracing('nestegg-api', { ...endpoint, OTEL_TRACES_SAMPLER: 'always_off' });
    try {
      expect(tracing).not.toBeNull();
      const span = tracing!.tracer.startSpan('probe');
      expect(span.isRecording()).toBe(false);
      span.end();
    } finally {
      await tracing?.shutdown();
    }
    expect(activeTracing()).toBeNull();
  });
});

import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';

/** Where the text-recognition provider is (`OCR_API_URL`, `OCR_API_KEY`, `OCR_TIMEOUT_MS`); null when not set up. */
export interface TextRecognitionConfig {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

/** An image ready to send: decoded and re-encoded by us, never the client's bytes. */
export interface RecognizableImage {
  bytes: Buffer;
  contentType: string;
}

/** Reads the text of an image; throws `RecognitionFailedError` when the provider gives no usable answer. */
export interface TextRecognizer {
  recognize(image: RecognizableImage): Promise<string>;
}

/** The provider failed (down, slow, over its quota, refused the key): the caller answers 503. */
export class RecognitionFailedError extends Error {}

/** Korean receipts first; English for the imported goods and card slips on them. */
const LANGUAGE_HINTS = ['ko', 'en'];

/** The part of an `images:annotate` answer we read (each field is optional in the provider's answer). */
const AnnotateAnswerSchema = z.object({
  responses: z
    .array(
      z.object({
        fullTextAnnotation: z.object({ text: z.string().optional() }).optional(),
        textAnnotations: z.array(z.object({ description: z.string().optional() })).optional(),
        error: z.object({ code: z.number().optional(), message: z.string().optional() }).optional(),
      }),
    )
    .min(1),
});
type AnnotateResponse = z.infer<typeof AnnotateAnswerSchema>['responses'][number];

// biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL character is exactly what this removes
const NUL = /\u0000/g;

/** NUL cannot travel in a contract string (C24). */
function printable(text: string): string {
  return text.replace(NUL, '');
}

/**
 * Google Cloud Vision `POST {base}/v1/images:annotate` with `DOCUMENT_TEXT_DETECTION` (dense text such as
 * receipts), the image inline as base64 and the key in the `x-goog-api-key` header (kept out of URLs and
 * logs). The full text is `responses[0].fullTextAnnotation.text`; an image without text has no annotation
 * and reads as an empty string.
 */
export class GoogleVisionTextRecognizer implements TextRecognizer {
  constructor(
    private readonly config: TextRecognitionConfig,
    private readonly logger: FastifyBaseLogger,
  ) {}

  async recognize(image: RecognizableImage): Promise<string> {
    const answer = AnnotateAnswerSchema.safeParse(await this.annotate(image));
    if (!answer.success) throw this.failed('an answer without responses');
    const [response] = answer.data.responses as [AnnotateResponse];
    if (response.error) throw this.failed(`error ${response.error.code ?? '?'} for the image`);
    return printable(response.fullTextAnnotation?.text ?? response.textAnnotations?.[0]?.description ?? '');
  }

  private async annotate(image: RecognizableImage): Promise<unknown> {
    const body = {
      requests: [
        {
          image: { content: image.bytes.toString('base64') },
          features: [{ type: 'DOCUMENT_TEXT_DETECTION' }],
          imageContext: { languageHints: LANGUAGE_HINTS },
        },
      ],
    };
    let response: Response;
    try {
      response = await fetch(`${this.config.baseUrl.replace(/\/+$/, '')}/v1/images:annotate`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-goog-api-key': this.config.apiKey,
        },
        body: JSON.stringify(body),
        // OCR_TIMEOUT_MS=0 means no limit, as for the other timeouts.
        ...(this.config.timeoutMs > 0 ? { signal: AbortSignal.timeout(this.config.timeoutMs) } : {}),
      });
      if (!response.ok) throw this.failed(`status ${response.status}`);
      return await response.json();
    } catch (error) {
      if (error instanceof RecognitionFailedError) throw error;
      this.logger.warn({ err: error }, 'text-recognition provider unreachable or not answering JSON');
      throw new RecognitionFailedError('unreachable');
    }
  }

  private failed(reason: string): RecognitionFailedError {
    this.logger.error({ reason }, 'text-recognition provider gave no usable answer');
    return new RecognitionFailedError(reason);
  }
}

/**
 * MCP error messages carry the server's response body, which can echo the token (issue 13):
 * describeMcpError scrubs tokens and bearer headers before anything is shown or sent.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeMcpError } from '../../../src/tools/mcp/errors';
import { scrubSecrets } from '../../../src/util/scrub-secrets';

const token = fc.stringMatching(/^[A-Za-z0-9._~-]{16,40}$/);

describe('secrets in MCP errors', () => {
  it('no generated token survives in the error text, whatever form the body echoes it in', () => {
    fc.assert(
      fc.property(
        token,
        fc.constantFrom(
          (t: string) => `{"error":"bad request","headers":{"Authorization":"Bearer ${t}"}}`,
          (t: string) => `Authorization: Bearer ${t}\r\n`,
          (t: string) => `invalid token=${t}&x=1`,
          (t: string) => `{"access_token": "${t}"}`,
          (t: string) => `x-api-key: ${t}`,
          (t: string) => `rejected bearer ${t} for /mcp`,
        ),
        (t, body) => {
          const text = describeMcpError(
            new StreamableHTTPError(500, `Error POSTing to endpoint: ${body(t)}`),
          );
          expect(text, text).not.toContain(t);
          expect(text).toContain('[redacted]');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('known values and well-known key shapes are scrubbed; ordinary text is kept', () => {
    expect(scrubSecrets('echo: s3cr3t-value-123 and %73', ['s3cr3t-value-123'])).toBe(
      'echo: [redacted] and %73',
    );
    expect(scrubSecrets('key sk-ant-abcdefghijklmnopqrstuvwx here')).toBe('key [redacted] here');
    expect(scrubSecrets('jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijk')).toBe(
      'jwt [redacted]',
    );
    expect(scrubSecrets('HTTP 500: the tool "search" failed: timeout')).toBe(
      'HTTP 500: the tool "search" failed: timeout',
    );
  });
});

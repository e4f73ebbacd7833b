/**
 * The shape of one MCP tool: its zod input (mirroring the request body of the operation behind it, with
 * defaults), its declared output, and `run`, which calls the API through the report client and returns the
 * structured records and a short text table. Adding a tool is one file exporting `defineTool({...})` and one
 * line in tools/index.ts.
 */
import type { z } from 'zod';
import type { ModelCatalog } from '../models';
import type { ReportClient } from '../report-client';

export interface ToolContext {
  client: ReportClient;
  models: ModelCatalog;
  now: () => Date;
}

export interface ToolResult<Structured> {
  /** The records (and the exact request bodies sent), as the result's `structuredContent`. */
  structured: Structured;
  /** A short text table, as the result's text content. */
  text: string;
}

export interface ToolDefinition<In extends z.ZodObject, Out extends z.ZodObject> {
  /** snake_case, stable: clients keep it in their settings. */
  name: string;
  title: string;
  /** What the tool answers, for the assistant choosing a tool: say what the figures mean. */
  description: string;
  input: In;
  output: Out;
  run(args: z.output<In>, ctx: ToolContext): Promise<ToolResult<z.output<Out>>>;
}

/** A tool with its types erased, for the registry. */
export interface ReportTool {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
  run(args: unknown, ctx: ToolContext): Promise<ToolResult<Record<string, unknown>>>;
}

export const defineTool = <In extends z.ZodObject, Out extends z.ZodObject>(
  tool: ToolDefinition<In, Out>,
): ReportTool => tool;

/** A tool argument the API cannot check for the tool (e.g. a filter on a dimension not requested). */
export class ToolInputError extends Error {
  constructor(field: string, what: string) {
    super(`${field}: ${what}`);
    this.name = 'ToolInputError';
  }
}

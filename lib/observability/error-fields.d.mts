export interface ErrorFields {
  type?: string;
  code?: string;
  message?: string;
  query?: string;
  routine?: string;
  constraint?: string;
  stack?: string;
  causes?: Omit<ErrorFields, "causes" | "stack">[];
}

/** An error as loggable fields, without query parameters or quoted values. */
export declare function errorFields(error: unknown): ErrorFields;

export declare const KEY_PREFIX: "fl";
export declare const KEY_SCOPES: readonly ["ingest", "read", "admin"];
export type KeyScope = (typeof KEY_SCOPES)[number];
export declare const ROLES: readonly ["viewer", "admin"];
export type Role = (typeof ROLES)[number];
export declare const MIN_PASSWORD_LENGTH: number;

export declare function hashSecret(secret: string): string;
export declare function constantTimeEqual(a: string, b: string): boolean;
export declare function generateApiKey(): { id: string; key: string; secretHash: string };
export declare function parseApiKey(text: string): { id: string; secret: string } | null;
export declare function secretMatches(secret: string, storedHash: string): boolean;
export declare function generateSessionToken(): { token: string; tokenHash: string };
export declare function hashPassword(password: string): Promise<string>;
export declare function verifyPassword(password: string, stored: string): Promise<boolean>;

export declare const LOCK_FILE: string;

export interface DataLockOwner {
  pid: number;
  proc_start?: string;
  started_at?: string;
  host?: string;
  command?: string;
}

export declare class DataFolderLockedError extends Error {
  readonly code: "DATA_FOLDER_LOCKED";
  readonly dataDir: string;
  readonly owner: DataLockOwner;
  constructor(dataDir: string, owner: DataLockOwner);
}

export interface DataLock {
  file: string;
  release(): void;
}

/** Who holds the folder's lock, if a live process does. */
export declare function dataLockOwner(dataDir: string): DataLockOwner | undefined;

/** Takes the folder's lock for this process (a stale one is taken over); throws DataFolderLockedError when held. */
export declare function acquireDataLock(dataDir: string, options?: { command?: string }): DataLock;

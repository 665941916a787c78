export declare const compiledDir: string;
export declare function runsSources(): boolean;
export declare function sourceHash(text: string | Uint8Array): string;
export declare function staleness(): string | null;
export declare function whatToDo(why: string): string;
export declare function registerTsx(): Promise<void>;
export declare function loadThread<T>(name: string, fromSources: () => Promise<T>): Promise<T>;

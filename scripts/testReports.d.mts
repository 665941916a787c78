export declare function vitestFiles(report: unknown): [string, number][];
export declare function playwrightFiles(report: unknown): [string, number][];
export declare function vitestFailures(report: unknown): [string, string, string][];
export declare function playwrightFailures(report: unknown): [string, string, string][];
export declare function errorHead(error: string, lines?: number, width?: number): string[];

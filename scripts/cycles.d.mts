export declare function checkImports(dir: string): { code: number; stderr: string };

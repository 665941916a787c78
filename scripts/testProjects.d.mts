export declare const TEST_FILES: string[];
export declare const OWN_FILES: string[];
export declare const PURE_FILES: string[];
export declare const PURE_FORBIDDEN_IMPORTS: string[];

/*
 * The sizes of ggml's tensor types and the names of GGUF file types, by their ids, for checking a model file's header.
 */

/**
 * Sizes of ggml's tensor types, `[elements per block, bytes per block]` by type id, from `type_traits` in ggml's
 * ggml/src/ggml.c (the `blck_size` and `type_size` of each `GGML_TYPE_*`; the block layouts are in ggml-common.h).
 * Ids 4 and 5 (Q4_2, Q4_3) and 31 to 33 and 36 to 38 (the repacked Q4_0_x_x and IQ4_NL_x_x) are no longer in files
 * llama.cpp loads; ids without an entry here are read but their size is not checked.
 */
export const ggmlTypeSizes: ReadonlyMap<number, readonly [number, number]> = new Map([
  [0, [1, 4]], // F32
  [1, [1, 2]], // F16
  [2, [32, 18]], // Q4_0
  [3, [32, 20]], // Q4_1
  [6, [32, 22]], // Q5_0
  [7, [32, 24]], // Q5_1
  [8, [32, 34]], // Q8_0
  [9, [32, 36]], // Q8_1
  [10, [256, 84]], // Q2_K
  [11, [256, 110]], // Q3_K
  [12, [256, 144]], // Q4_K
  [13, [256, 176]], // Q5_K
  [14, [256, 210]], // Q6_K
  [15, [256, 292]], // Q8_K
  [16, [256, 66]], // IQ2_XXS
  [17, [256, 74]], // IQ2_XS
  [18, [256, 98]], // IQ3_XXS
  [19, [256, 50]], // IQ1_S
  [20, [32, 18]], // IQ4_NL
  [21, [256, 110]], // IQ3_S
  [22, [256, 82]], // IQ2_S
  [23, [256, 136]], // IQ4_XS
  [24, [1, 1]], // I8
  [25, [1, 2]], // I16
  [26, [1, 4]], // I32
  [27, [1, 8]], // I64
  [28, [1, 8]], // F64
  [29, [256, 56]], // IQ1_M
  [30, [1, 2]], // BF16
  [34, [256, 54]], // TQ1_0
  [35, [256, 66]], // TQ2_0
  [39, [32, 17]], // MXFP4
]);

/** The highest tensor type id known (node-llama-cpp 3.21.1's `GgmlType`); a larger one is not a file this app can read. */
export const lastGgmlType = 42;

/**
 * Names of `general.file_type` (llama.cpp's `enum llama_ftype` in include/llama.h, as node-llama-cpp's `GgufFileType`
 * lists them), for people: the quantization of most of the weights.
 */
export const fileTypeNames: ReadonlyMap<number, string> = new Map([
  [0, 'F32'],
  [1, 'F16'],
  [2, 'Q4_0'],
  [3, 'Q4_1'],
  [7, 'Q8_0'],
  [8, 'Q5_0'],
  [9, 'Q5_1'],
  [10, 'Q2_K'],
  [11, 'Q3_K_S'],
  [12, 'Q3_K_M'],
  [13, 'Q3_K_L'],
  [14, 'Q4_K_S'],
  [15, 'Q4_K_M'],
  [16, 'Q5_K_S'],
  [17, 'Q5_K_M'],
  [18, 'Q6_K'],
  [19, 'IQ2_XXS'],
  [20, 'IQ2_XS'],
  [21, 'Q2_K_S'],
  [22, 'IQ3_XS'],
  [23, 'IQ3_XXS'],
  [24, 'IQ1_S'],
  [25, 'IQ4_NL'],
  [26, 'IQ3_S'],
  [27, 'IQ3_M'],
  [28, 'IQ2_S'],
  [29, 'IQ2_M'],
  [30, 'IQ4_XS'],
  [31, 'IQ1_M'],
  [32, 'BF16'],
  [36, 'TQ1_0'],
  [37, 'TQ2_0'],
  [38, 'MXFP4_MOE'],
]);

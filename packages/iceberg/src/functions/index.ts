export { FunctionMetadataSchema, functionMetadataProblems, type FunctionDataType, type FunctionMetadata } from './model';

/* The module of a class as HotSpot's thread dump names it in a frame, "name@version/" or "name/"
 * before the source file: java_lang_Throwable::print_stack_element_to_stream prints the module of
 * the method's holder when it is named, with its version when it has one, and nothing for an
 * unnamed module (no class loader name, unlike StackTraceElement.toString). Resolved once per
 * module: a few calls to Module and ModuleDescriptor, then a lookup among the modules seen. */
#ifndef JVMTICLI_CLASS_MODULE_H
#define JVMTICLI_CLASS_MODULE_H

#include <jni.h>

/* "java.base@17.0.15", "my.app" or NULL (an unnamed module, or not known); owned by the cache,
 * valid until the next call. Call on the agent thread only. */
const char *class_module_of(JNIEnv *jni, jclass klass);

/* Drops the weak references and names kept (agent shutdown). */
void class_module_release(JNIEnv *jni);

#endif

#ifndef VM_MODEL_REGISTRY_H
#define VM_MODEL_REGISTRY_H

/*
 * The known hypervisor models, looked up by name (parameter `model` of
 * filter.vm.state). The built-in models are listed in registry.c; others can
 * be registered at run time (a test registers a toy model this way).
 */

#include <stdbool.h>

#include "model/model.h"

/* The model class named `name`, NULL if none. */
const struct vm_model_class *vm_model_registry_find(const char *name);

/*
 * Adds a model class. Returns false (and adds nothing) when a model of that
 * name exists already. The class must outlive every lookup.
 */
bool vm_model_registry_add(const struct vm_model_class *cls);

/* Forgets the classes added with vm_model_registry_add(). */
void vm_model_registry_reset(void);

/* The known names, for error messages: "kvm, toy" (g_free() it). */
char *vm_model_registry_names(void);

#endif /* VM_MODEL_REGISTRY_H */

package dev.ratelimit.aop;

import java.lang.reflect.AnnotatedElement;

import dev.ratelimit.RateLimited;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Compiles every {@link RateLimited} annotation of every bean once all singletons exist, so that an invalid
 * annotation (unknown rule, bad period, unparsable SpEL) fails start-up instead of the first call.
 */
public class RateLimitedMethodsValidator implements SmartInitializingSingleton {

	private final ObjectProvider<RateLimitedAspect> aspect;

	private final ConfigurableListableBeanFactory beanFactory;

	public RateLimitedMethodsValidator(ObjectProvider<RateLimitedAspect> aspect,
			ConfigurableListableBeanFactory beanFactory) {
		this.aspect = aspect;
		this.beanFactory = beanFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		RateLimitedAspect aspect = this.aspect.getIfAvailable();
		if (aspect == null) {
			return;
		}
		for (String name : this.beanFactory.getBeanDefinitionNames()) {
			Class<?> type = this.beanFactory.getType(name, false);
			if (type == null || type.getName().startsWith("org.springframework.")) {
				continue;
			}
			Class<?> userClass = ClassUtils.getUserClass(type);
			boolean classLevel = isAnnotated(userClass);
			ReflectionUtils.doWithMethods(userClass, (method) -> aspect.validate(method, userClass, name),
					(method) -> classLevel ? isPublicInstance(method) : isAnnotated(method));
		}
	}

	/**
	 * Returns whether an element carries {@link RateLimited} once or repeated: {@code hasAnnotation} alone does not
	 * look inside the {@link RateLimited.List} container that Java generates for repeated annotations.
	 */
	private static boolean isAnnotated(AnnotatedElement element) {
		return !AnnotatedElementUtils.findMergedRepeatableAnnotations(element, RateLimited.class).isEmpty();
	}

	private static boolean isPublicInstance(java.lang.reflect.Method method) {
		int modifiers = method.getModifiers();
		return java.lang.reflect.Modifier.isPublic(modifiers) && !java.lang.reflect.Modifier.isStatic(modifiers)
				&& method.getDeclaringClass() != Object.class;
	}

}
